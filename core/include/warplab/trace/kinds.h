// The kinds of lane record and the memory spaces, each listed once: the
// record's enum, the trace format's and the CLI's words, and what each kind
// is (a memory access, a write, work that makes a lane active, a warp
// collective) all come from these two lists. The enum values are the
// records' bytes (the GPU trace writes them): append, never reorder.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

// X(enumerator, word, memory access, writes memory, work, warp collective)
// Work: a lane doing it is active in its step (a barrier alone is not work).
#define WL_TRACE_KINDS(X)                                                                  \
    X(Load, "load", true, false, true, false)                                              \
    X(Store, "store", true, true, true, false)                                             \
    X(Atomic, "atomic", true, true, true, false) /* read-modify-write */                   \
    X(Shuffle, "shuffle", false, false, true, true) /* value = the lane's input */         \
    X(Vote, "vote", false, false, true, true)       /* __ballot/__any/__all/__reduce */    \
    X(SyncWarp, "syncwarp", false, false, false, true)                                     \
    X(SyncThreads, "syncthreads", false, false, false, false)                              \
    X(Declare, "declare", false, false, false, false) /* a shared array came into scope */      \
    X(Mix, "mix", false, false, false, false) /* a warp's instructions of one class in one step (mix.h) */

// X(enumerator, word)
#define WL_TRACE_SPACES(X) X(None, "none") X(Shared, "shared") X(Global, "global") X(Constant, "constant")

namespace wl::trace {

#define WL_TRACE_ENUMERATOR(id, ...) id,
enum class Kind : std::uint8_t { WL_TRACE_KINDS(WL_TRACE_ENUMERATOR) };
enum class Space : std::uint8_t { WL_TRACE_SPACES(WL_TRACE_ENUMERATOR) };
#undef WL_TRACE_ENUMERATOR

struct KindInfo {
    Kind kind;
    const char* name;
    bool memory, writes, work, collective;
};

#define WL_TRACE_KIND_INFO(id, name, memory, writes, work, collective) KindInfo{Kind::id, name, memory, writes, work, collective},
inline constexpr KindInfo kKinds[] = {WL_TRACE_KINDS(WL_TRACE_KIND_INFO)};
#undef WL_TRACE_KIND_INFO

struct SpaceInfo {
    Space space;
    const char* name;
};
#define WL_TRACE_SPACE_INFO(id, name) SpaceInfo{Space::id, name},
inline constexpr SpaceInfo kSpaces[] = {WL_TRACE_SPACES(WL_TRACE_SPACE_INFO)};
#undef WL_TRACE_SPACE_INFO

// Unknown values (a corrupt record) read as a kind that is nothing: no name, no work.
constexpr KindInfo kind_info(Kind k)
{
    const auto i = static_cast<std::size_t>(k);
    return i < std::size(kKinds) ? kKinds[i] : KindInfo{k, "unknown", false, false, false, false};
}
constexpr const char* kind_name(Kind k) { return kind_info(k).name; }
constexpr bool is_memory(Kind k) { return kind_info(k).memory; }  // load, store or atomic
constexpr bool writes_memory(Kind k) { return kind_info(k).writes; }
constexpr bool is_work(Kind k) { return kind_info(k).work; }
constexpr bool is_collective(Kind k) { return kind_info(k).collective; }

constexpr const char* space_name(Space s)
{
    const auto i = static_cast<std::size_t>(s);
    return i < std::size(kSpaces) ? kSpaces[i].name : "unknown";
}

constexpr std::optional<Kind> find_kind(std::string_view name)
{
    for (const KindInfo& k : kKinds)
        if (name == k.name) return k.kind;
    return std::nullopt;
}

constexpr std::optional<Space> find_space(std::string_view name)
{
    for (const SpaceInfo& s : kSpaces)
        if (name == s.name) return s.space;
    return std::nullopt;
}

// The records' bytes, as traces on disk and the GPU instrumentation have them.
static_assert(static_cast<int>(Kind::Load) == 0 && static_cast<int>(Kind::Store) == 1 && static_cast<int>(Kind::Atomic) == 2 &&
                  static_cast<int>(Kind::Shuffle) == 3 && static_cast<int>(Kind::Vote) == 4 &&
                  static_cast<int>(Kind::SyncWarp) == 5 && static_cast<int>(Kind::SyncThreads) == 6 &&
                  static_cast<int>(Kind::Declare) == 7 && static_cast<int>(Kind::Mix) == 8,
              "the records' kind bytes are fixed: append kinds, never reorder them");
static_assert(static_cast<int>(Space::None) == 0 && static_cast<int>(Space::Shared) == 1 && static_cast<int>(Space::Global) == 2 &&
                  static_cast<int>(Space::Constant) == 3,
              "the records' space bytes are fixed: append spaces, never reorder them");

}  // namespace wl::trace
