// Checks: what the runtime reports about a running lane. Shared-memory
// accesses (uninitialised reads, races as CUDA defines them, with the warp
// synchronisations that order two accesses), the warnings CUDA's rules allow,
// the watched blocks' records, and the faults that stop a launch.
#include <sstream>

#include "races.h"

namespace wl::emu {

std::string Fault::message() const
{
    std::ostringstream m;
    m << "kernel " << kernel << ", block (" << block.x << "," << block.y << "," << block.z << "), thread ("
      << thread.x << "," << thread.y << "," << thread.z << ") [warp " << warp << ", lane " << lane << "]: " << what;
    if (!file.empty()) m << " (at " << file << ":" << line << ")";
    return m.str();
}

namespace detail {

[[noreturn]] void fault(Lane& lane, const char* file, unsigned line, std::string what)
{
    Block& b = *lane.block;
    if (!b.fault) {
        b.fault = Fault{b.kernel, b.idx, lane.view.thread_idx, lane.warp, lane.lane, file ? file : "", line,
                         std::move(what)};
    }
    set_state(lane, LaneState::Faulted);
    if (explicit_state(lane)) throw LaneStopped{};
    ctx::jump_fcontext(lane.sched, nullptr);
    std::abort();
}

// A thread's index in its block from its flat number (x fastest).
uint3 thread_index(const Block& b, unsigned flat)
{
    const dim3& d = b.dim;
    return {flat % d.x, (flat / d.x) % d.y, flat / (d.x * d.y)};
}

std::string thread_name(const Block& b, unsigned flat)
{
    if (flat == copy_engine(b)) return "the copy engine";
    const uint3 t = thread_index(b, flat);
    std::ostringstream s;
    s << "thread (" << t.x << "," << t.y << "," << t.z << ")";
    return s.str();
}

std::string site(const char* file, unsigned line)
{
    return std::string(file ? file : "?") + ":" + std::to_string(line);
}

// Where another access was, said against this one's place (which the fault
// message ends with): " on the same line", or " at file:line".
std::string other_site(const char* here_file, unsigned here_line, const char* file, unsigned line)
{
    const bool same_file = here_file == file || (here_file && file && std::strcmp(here_file, file) == 0);
    return same_file && here_line == line ? " on the same line" : " at " + site(file, line);
}

std::string element_name(const char* name, const DeclaredShape* shape, long long index)
{
    std::uint64_t count = 1;
    for (unsigned d = 0; shape && d < shape->rank; ++d) count *= shape->extents[d];
    std::string named = name;
    if (!shape || shape->rank < 2 || index < 0 || static_cast<std::uint64_t>(index) >= count)
        return named + "[" + std::to_string(index) + "]";
    // Row-major, as C lays out `T a[R][C]`: the last subscript varies fastest.
    std::string subscripts;
    auto rest = static_cast<std::uint64_t>(index);
    for (unsigned d = shape->rank; d-- > 0;) {
        subscripts.insert(0, std::string("[").append(std::to_string(rest % shape->extents[d])).append("]"));
        rest /= shape->extents[d];
    }
    return named + subscripts;
}

// ------------------------------------------------------------- records --

void record_watched(Lane& lane, Kind kind, Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                    const void* value, unsigned value_bytes, const char* file, unsigned line)
{
    Block& b = *lane.block;
    LaneRecord r{};
    r.block = b.flat;
    r.thread = lane.flat;
    r.seq = lane.seq++;
    r.epoch = lane.epoch;
    r.sub = lane.sub;
    r.line = line;
    if (file != b.recorded_file) {
        b.recorded_file = file;
        b.recorded_file_hash = trace::file_hash(file ? file : "");
    }
    r.file_hash = b.recorded_file_hash;
    r.kind = kind;
    r.space = space;
    r.size = static_cast<std::uint8_t>(size);
    r.array = array;
    r.offset = offset;
    if (value) std::memcpy(r.value, value, std::min<unsigned>(value_bytes, sizeof r.value));
    append_record(b, r);
}

void append_record(Block& b, const LaneRecord& r)
{
    std::vector<LaneRecord>& out = *b.records;
    if (out.size() >= b.max_records) {  // memory stays bounded however long the kernel runs
        b.records_cut = true;
        return;
    }
    if (out.size() == out.capacity())  // grown by doubling, but never past the cap
        out.reserve(std::min(b.max_records, std::max<std::size_t>(1024, 2 * out.capacity())));
    out.push_back(r);
}

// ------------------------------------------------------ race detection --

// The rules two unordered accesses of different threads meet, for shared and
// global memory alike (global_races.cpp calls clash too): races.h.

// A warning at one thread's access, kept once per site and text.
void warn(Block& b, unsigned thread, const char* file, unsigned line, std::string what)
{
    for (Warning& w : b.warnings)
        if (w.at.line == line && w.at.what == what && w.at.file == (file ? file : "")) {
            ++w.count;
            return;
        }
    b.warnings.push_back(Warning{Fault{b.kernel, b.idx, thread_index(b, thread), thread >> b.warp_shift, thread & (b.warp_width - 1),
                                       file ? file : "", line, std::move(what)}});
}

// What this access and an unordered one of another thread are under CUDA's
// rules (NVIDIA, "CUDA C++ Programming Guide": a warp instruction's writes to
// one location from several lanes: one of them lands; atomics are not data
// races among themselves): a race stops the launch, the rest are warnings or nothing.
// A plain store to a word that other threads update atomically, with nothing
// ordering the two, as the block queue of Kirk and Hwu's BFS stores its tail
// on overflow while other threads atomicAdd it: a data race by the memory
// model that the hardware hides. Warnings, once per pair of lines; the run goes on.
namespace {

constexpr const char* kModelRace =
    ": CUDA's memory model (PTX ISA, \"Memory Consistency Model\") calls two conflicting accesses that are not both "
    "atomic, with nothing ordering them, a data race, and leaves the result undefined; ";

std::string element(const MemoryAccess& a) { return element_name(a.name, a.shape, a.index); }

std::string store_against_atomic(const MemoryAccess& a, const std::string& atomic_site)
{
    return "a plain store to " + element(a) + " races with another thread's atomic operation on it" + atomic_site +
           kModelRace + "the GPU applies " + (a.global ? "global-memory stores and atomics (in L2)" : "shared-memory stores and atomics") +
           " to one word one at a time, so each atomic sees the word before or after the store and the race usually "
           "goes unseen. An atomic store (atomicExch) makes it well-defined";
}

std::string same_store_beside_atomics(const MemoryAccess& a, const std::string& other_store_site)
{
    return "plain stores of the same value to " + element(a) + " by threads of two warps (here and" + other_store_site +
           "), a word other threads update atomically" + kModelRace +
           "both write the same bits, so the word is the same in either order. An atomic store (atomicExch) makes it well-defined";
}

// No element index, so that one warning stands for every word of the array.
std::string same_store_by_two_threads(const MemoryAccess& a, const std::string& other_store_site)
{
    return "plain stores of the same value to one element of " + std::string(a.name) + " by two threads (here and" +
           other_store_site + "), with nothing ordering them" + kModelRace +
           "both write the same bits, so the element is the same in either order (as BFS's 'frontier not empty' flag). "
           "An atomic store (atomicExch) makes it well-defined";
}

// Whether a plain store writes to `bytes` of the word at `now` what its last write left there.
bool stores_the_same(const MemoryAccess& a, const unsigned char* now, std::uint8_t bytes, const void* stored)
{
    const auto* mine = static_cast<const unsigned char*>(stored) + (now - static_cast<const unsigned char*>(a.ptr));
    for (unsigned k = 0; k < 4; ++k)
        if ((bytes >> k & 1) && now[k] != mine[k]) return false;
    return true;
}

}  // namespace

void clash(Lane& lane, const MemoryAccess& a, const WordAt& word, std::uint8_t bytes, const AccessStamp& other,
           bool other_writes, AccessFacts& facts, RaceFault race)
{
    Block& b = *lane.block;
    if (other.thread == copy_engine(b)) race(lane, a, word.index, other, other_writes);  // no lane of a warp, no atomic
    const bool other_stores = other_writes && !other.atomic;
    const bool same_instruction = facts.stored && other_stores && other.block == b.flat &&
                                  (other.thread >> b.warp_shift) == lane.warp && other.line == a.line && other.file == a.file;
    if (same_instruction) {
        if (!stores_the_same(a, word.bytes, bytes, facts.stored))  // the same bytes: whichever lands, the word is the same
            warn(b, lane.flat, a.file, a.line, "lanes of one store instruction write different values to " + element(a) +
                                                   ": one lane's value lands (which one, CUDA leaves undefined)");
        return;
    }
    if (facts.stored && other_stores && other.beside_atomics && stores_the_same(a, word.bytes, bytes, facts.stored)) {
        facts.beside_atomics = true;
        warn(b, lane.flat, a.file, a.line, same_store_beside_atomics(a, other_site(a.file, a.line, other.file, other.line)));
        return;
    }
    if (facts.stored && !other.atomic && stores_the_same(a, word.bytes, bytes, facts.stored)) {
        // The bytes already there: whichever of the two comes first, every read sees the same word.
        if (other_writes)
            warn(b, lane.flat, a.file, a.line, same_store_by_two_threads(a, other_site(a.file, a.line, other.file, other.line)));
        return;
    }
    // A warning named at the other access only where it was in this block (a Warning names a thread of the block).
    const bool other_here = other.block == b.flat;
    const bool plain_read_against_atomic = (facts.atomic && other_writes == false && !other.atomic) ||
                                           (a.kind == Kind::Load && !facts.atomic && other.atomic);
    if (plain_read_against_atomic) {
        // Named at the plain read, whichever of the two came second.
        const bool read_is_this = (a.kind == Kind::Load && !facts.atomic) || !other_here;
        warn(b, read_is_this ? lane.flat : other.thread, read_is_this ? a.file : other.file,
             read_is_this ? a.line : other.line,
             "a plain read of " + element(a) + " races with atomics of other threads (it may see a stale value, as atomicCAS loops allow)");
        return;
    }
    const bool plain_store_against_atomic = (a.kind == Kind::Store && !facts.atomic && other.atomic) ||
                                            (facts.atomic && other_writes && !other.atomic);
    if (plain_store_against_atomic) {
        // Named at the plain store, whichever of the two came second.
        const bool store_is_this = a.kind == Kind::Store || !other_here;
        facts.beside_atomics |= a.kind == Kind::Store;
        const char* store_file = store_is_this ? a.file : other.file;
        const unsigned store_line = store_is_this ? a.line : other.line;
        warn(b, store_is_this ? lane.flat : other.thread, store_file, store_line,
             store_against_atomic(a, other_site(store_file, store_line, store_is_this ? other.file : a.file,
                                                store_is_this ? other.line : a.line)));
        return;
    }
    race(lane, a, word.index, other, other_writes);
}

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void race_fault(Lane& lane, const MemoryAccess& a, std::uint64_t word,
                                                      const AccessStamp& other, bool other_writes)
{
    const char* this_kind = a.kind == Kind::Load ? "read" : "written";
    std::ostringstream what;
    what << "data race on shared memory: " << element(a) << " (word " << word << ") is "
         << this_kind << " here and " << (other_writes ? "written" : "read") << " by "
         << thread_name(*lane.block, other.thread) << other_site(a.file, a.line, other.file, other.line);
    if (other.thread == copy_engine(*lane.block))
        what << " (the cp.async.bulk issued there), and this thread has not waited on the mbarrier it completes, "
                "nor passed a __syncthreads() or __syncwarp() since a thread that did";
    else
        what << ", with no __syncthreads(), __syncwarp() or wait on an mbarrier it arrived at between the two";
    fault(lane, a.file, a.line, what.str());
}

// A stamp of word `s` that this access (its `bytes`, whether `atomic`) must be settled against by clash.
// Inline: nearly every access meets no earlier one of this interval from another thread.
inline bool unordered(const Lane& lane, const WordShadow& s, const SharedStamp& other, std::uint8_t bytes, bool atomic)
{
    using namespace packed_stamp;
    return !(atomic && atomic_of(other.packed)) && (bytes & bytes_of(other.packed)) && !ordered(lane, s, other);
}

[[noreturn, gnu::cold, gnu::noinline]] void uninitialised_fault(Lane& lane, const MemoryAccess& a)
{
    const Block& b = *lane.block;
    const auto byte = static_cast<std::size_t>(static_cast<unsigned char*>(a.ptr) - b.arena);
    std::ostringstream what;
    for (const Block::BulkCopy& c : b.copies)
        if (byte + a.size > c.dst && byte < c.dst + c.bytes) {
            what << "read of shared memory that a bulk copy has not filled yet: " << element(a)
                 << " is written by the cp.async.bulk that " << thread_name(b, c.issuer) << " issued at "
                 << site(c.file, c.line) << ", which has landed only once a thread has waited on its mbarrier";
            fault(lane, a.file, a.line, what.str());
        }
    // "Not yet": another thread may write it later, when a barrier between
    // its write and this read is missing (the commonest cause in a lab).
    what << "read of uninitialised shared memory: " << element(a)
         << " has not been written in this block before this read (if another thread writes it, is a "
            "__syncthreads() missing between that write and this read, or a wait on the barrier it arrives at?)";
    fault(lane, a.file, a.line, what.str());
}

// What every lane of one shared access shares: its kind and size, whether it is atomic, its stamp's
// site and flags (packed_stamp; thread and bytes none), and whether lanes are stamped with their warp's
// round (the lockstep schedule: lane_clock).
struct SharedCheck {
    Kind kind;
    unsigned size;
    bool atomic;
    bool reads;  // needs the bytes written before: a load, or an atomic but atomicExch
    bool lockstep;
    std::uint32_t packed;
};

SharedCheck shared_check(Block& b, Kind kind, unsigned size, bool atomic, bool overwrites, const char* file, unsigned line)
{
    return SharedCheck{kind, size, atomic, kind != Kind::Store && !overwrites, b.opt->schedule == Schedule::Lockstep,
                       packed_stamp::pack(0, 0, atomic, false, shared_site(b, file, line))};
}

// Whether any byte of [byte, end) has been written in this block. A load wider than a word (a float4,
// a struct copied whole) may cover bytes nobody wrote (its .w, the struct's padding) that the kernel never
// uses; the emulator cannot see which are used, so such a load is a fault only where it reads nothing written.
bool any_byte_written(const Block& b, std::size_t byte, std::size_t end)
{
    for (std::size_t w = byte / 4; w < (end + 3) / 4; ++w)
        if (b.shadow[w].initialised & word_bytes(byte, end, w)) return true;
    return false;
}

// Leaves the lane's stamp of this access (the word's `bytes` it touched) in word s.
[[gnu::always_inline]] inline void stamp_word(const Block& b, const Lane& lane, const SharedCheck& c, std::uint32_t clock,
                                              WordShadow& s, std::uint8_t bytes, bool beside_atomics)
{
    using namespace packed_stamp;
    const std::uint32_t packed = c.packed | lane.flat | std::uint32_t{bytes} << kBytesShift;
    if (c.kind != Kind::Load) {
        s.write = SharedStamp{clock, packed | std::uint32_t{beside_atomics} << kBesideAtomicsBit};
        s.initialised |= bytes;
    } else {
        // The last read moves to read_other_warp only when it was another warp's (one warp's reads keep the older one).
        if (bytes_of(s.read.packed) != 0 && (thread_of(s.read.packed) >> b.warp_shift) != lane.warp) s.read_other_warp = s.read;
        s.read = SharedStamp{clock, packed};
    }
}

// The lane's clock, as lane_clock reads it.
inline std::uint32_t stamp_clock(const Block& b, const Lane& lane, const SharedCheck& c)
{
    return c.lockstep ? b.warps[lane.warp].round : lane.clock;
}

// The quick pass over an access: its words stamped while no message can come of them, for an access of
// whole words (as nearly all are). Returns the first word it left to the careful pass: one that a message
// may come of (a read of bytes not written, a stamp unordered with it), or the access's first word when
// it touches part of one.
[[gnu::always_inline]] inline std::size_t stamp_quickly(Block& b, const Lane& lane, const SharedCheck& c, std::size_t byte)
{
    std::size_t w = byte / 4;
    if (byte % 4 != 0 || c.size % 4 != 0) return w;
    const std::uint32_t clock = stamp_clock(b, lane, c);
    for (const std::size_t last = w + c.size / 4; w < last; ++w) {
        WordShadow& s = shadow_word(b, w, lane.epoch);
        const auto meets = [&](const SharedStamp& other) { return unordered(lane, s, other, 0xF, c.atomic); };
        if ((c.reads && s.initialised != 0xF) || meets(s.write) ||
            (c.kind != Kind::Load && (meets(s.read) || meets(s.read_other_warp))))
            return w;
        stamp_word(b, lane, c, clock, s, 0xF, false);
    }
    return w;
}

// The access's words from w on (those the quick pass left) checked and stamped, every rule applied:
// a message for each stamp unordered with it (clash), a fault for a read of bytes not written.
[[gnu::cold, gnu::noinline]] void stamp_carefully(Block& b, Lane& lane, const SharedCheck c, std::size_t byte, std::size_t w,
                                                  const void* stored, const MemoryAccess& a)
{
    AccessFacts facts{c.atomic, c.kind == Kind::Store ? stored : nullptr};
    const std::uint32_t clock = stamp_clock(b, lane, c);
    const std::size_t end = byte + c.size;
    for (const std::size_t last = (end + 3) / 4; w < last; ++w) {
        const std::uint8_t bytes = word_bytes(byte, end, w);
        WordShadow& s = shadow_word(b, w, lane.epoch);
        const auto settle = [&](const SharedStamp& other, bool other_writes) {
            if (unordered(lane, s, other, bytes, c.atomic))
                clash(lane, a, WordAt{w, b.arena + w * 4}, bytes, shared_access(b, s, other), other_writes, facts, race_fault);
        };
        if (c.reads && (s.initialised & bytes) != bytes && (c.size <= 4 || !any_byte_written(b, byte, end)))
            uninitialised_fault(lane, a);
        settle(s.write, true);
        if (c.kind != Kind::Load) {
            settle(s.read, false);
            settle(s.read_other_warp, false);
        }
        stamp_word(b, lane, c, clock, s, bytes, facts.beside_atomics);
    }
}

// A lane's access at ptr checked, and its stamps left in the shadow. Its description (describe(), a
// MemoryAccess) is made only for a message, and enter() makes the lane the running one before one
// names it (a warp pass enters its lanes only where one does).
template <class Describe, class Enter>
[[gnu::always_inline]] inline void check_shared(Block& b, Lane& lane, const SharedCheck& c, unsigned char* ptr,
                                                const void* stored, Describe describe, Enter enter)
{
    const auto byte = static_cast<std::size_t>(ptr - b.arena);
    const std::size_t w = stamp_quickly(b, lane, c, byte);
    if (w < (byte + c.size + 3) / 4) [[unlikely]] {
        enter();
        stamp_carefully(b, lane, c, byte, w, stored, describe());
    }
}

// Whether no write of this interval is stamped in the words of an access of whole words at ptr, which
// has just been checked (its words' stamps are this interval's): then any lane's plain read of them
// passes the check, as a read meets only writes.
inline bool words_unwritten(const Block& b, const SharedCheck& c, const unsigned char* ptr)
{
    const auto first = static_cast<std::size_t>(ptr - b.arena) / 4;
    for (std::size_t w = first; w < first + c.size / 4; ++w)
        if (packed_stamp::bytes_of(b.shadow[w].write.packed) != 0) return false;
    return true;
}

// The loads of a batch (one warp's lanes, in the pass's order) that read what an earlier lane of the
// batch read, found by address. Where that lane's words had no write stamped (words_unwritten), every
// later lane's check passes as its own did, and the rules' state after them all is the earlier lane's
// but for the read stamps, which name the last of them (one warp: no read moves to read_other_warp).
// So a repeated read is only noted, and the last one's stamps are left once its address leaves the table
// (direct-mapped: a collision costs a check) or the batch ends. Accesses of one size at multiples of it
// are the same or apart, so that no other lane's access meets those words in between.
class RepeatedReads {
public:
    RepeatedReads(Block& b, const SharedCheck& c, const unsigned* flats) : b_(b), c_(c), flats_(flats) {}
    RepeatedReads(const RepeatedReads&) = delete;
    RepeatedReads& operator=(const RepeatedReads&) = delete;
    // Whether lane k (of flats) reads what a kept lane read; it is then the last to.
    bool repeats(const unsigned char* ptr, unsigned k)
    {
        const unsigned s = slot(ptr);
        if (ptrs_[s] != ptr) return false;
        last_[s] = k;
        return true;
    }
    // Lane k's checked read of unwritten words, kept for the lanes after it (where it may be).
    void keep(const unsigned char* ptr, unsigned k)
    {
        if (static_cast<std::size_t>(ptr - b_.arena) % c_.size != 0 || !words_unwritten(b_, c_, ptr)) return;
        const unsigned s = slot(ptr);
        leave_stamps(s);
        ptrs_[s] = ptr;
        first_[s] = last_[s] = k;
    }
    // The batch's end: the last repeated reads' stamps left.
    void finish()
    {
        for (unsigned s = 0; s < kSlots; ++s) leave_stamps(s);
    }

private:
    static constexpr unsigned kSlots = 32;
    unsigned slot(const unsigned char* ptr) const { return reinterpret_cast<std::uintptr_t>(ptr) / c_.size % kSlots; }
    void leave_stamps(unsigned s)
    {
        if (!ptrs_[s] || last_[s] == first_[s]) return;
        const Lane& lane = b_.lanes[flats_[last_[s]]];
        const std::uint32_t clock = stamp_clock(b_, lane, c_);
        const auto first = static_cast<std::size_t>(ptrs_[s] - b_.arena) / 4;
        for (std::size_t w = first; w < first + c_.size / 4; ++w) stamp_word(b_, lane, c_, clock, b_.shadow[w], 0xF, false);
    }
    Block& b_;
    const SharedCheck& c_;
    const unsigned* flats_;
    const unsigned char* ptrs_[kSlots] = {};
    unsigned first_[kSlots], last_[kSlots];
};

}  // namespace

std::uint32_t new_shared_site(Block& b, const char* file, unsigned line)
{
    const std::pair<const char*, unsigned> at{file, line};
    const auto it = std::find(b.shared_sites.begin(), b.shared_sites.end(), at);
    auto index = static_cast<std::uint32_t>(it - b.shared_sites.begin());
    if (it == b.shared_sites.end()) {
        if (index <= packed_stamp::kMaxSite) b.shared_sites.push_back(at);
        else index = packed_stamp::kMaxSite;
    }
    b.shared_site_cache[line % std::size(b.shared_site_cache)] = Block::SiteSlot{file, line, index};
    return index;
}

// ------------------------------------------- the interpreter's entries --

void access_round()
{
    Lane& lane = *tls_lane;
    if (lane.block->opt->schedule == Schedule::Lockstep) yield_to_scheduler(lane);
}

void check_shared_access(trace::Kind kind, void* ptr, unsigned size, const char* name, long long index, const DeclaredShape* shape,
                         const char* file, unsigned line, const void* stored, bool strong, bool overwrites)
{
    Lane& lane = *tls_lane;
    Block& b = *lane.block;
    const SharedCheck c = shared_check(b, kind, size, kind == Kind::Atomic || strong, overwrites, file, line);
    check_shared(b, lane, c, static_cast<unsigned char*>(ptr), stored,
                 [&] { return MemoryAccess{name, index, file, line, kind, size, ptr, false, shape}; }, [] {});
}

// The lanes in the pass's order, each entered only where a message names it, and the last at the end,
// as entering each in turn would leave it.
void access_shared_lanes(const SharedLanes& at, const unsigned* flats, unsigned char* const* ptrs,
                         std::uint32_t (*data)[4], unsigned count)
{
    if (count == 0) return;
    Block& b = *tls_pass.block;
    // A load's lanes and a store's, of each size, have loops of their own: the kind and size are constants in them.
    const auto lanes = [&](auto stores, auto size) {
        constexpr unsigned kSize = decltype(size)::value;
        constexpr Kind kKind = decltype(stores)::value ? Kind::Store : Kind::Load;
        const SharedCheck c = shared_check(b, kKind, kSize, false, false, at.file, at.line);
        RepeatedReads repeated(b, c, flats);
        for (unsigned k = 0; k < count; ++k) {
            if (stores || !repeated.repeats(ptrs[k], k)) {
                const auto describe = [&] {
                    const auto index = static_cast<long long>((ptrs[k] - at.base) / at.elem);
                    return MemoryAccess{at.name, index, at.file, at.line, kKind, kSize, ptrs[k], false, at.shape};
                };
                check_shared(b, b.lanes[flats[k]], c, ptrs[k], stores ? data[k] : nullptr, describe, [&] { enter_lane(flats[k]); });
                if (!stores) repeated.keep(ptrs[k], k);
            }
            move_lane_bytes<kSize>(stores, ptrs[k], data[k]);
        }
        repeated.finish();
    };
    with_size(at.size, [&](auto size) {
        if (at.kind == Kind::Store) lanes(std::true_type{}, size);
        else lanes(std::false_type{}, size);
    });
    enter_lane(flats[count - 1]);
}

bool spin_yield()
{
    Lane& lane = *tls_lane;
    lane.spun = true;
    if (explicit_state(lane)) return true;
    yield_to_scheduler(lane);
    return false;
}

void instruction_budget_fault(std::uint64_t budget, const char* file, unsigned line)
{
    fault(*tls_lane, file, line,
          "the kernel did not finish within " + std::to_string(budget) +
              " instructions per thread: an endless loop? (this thread was on this line when the budget ran out; "
              "--max-instructions raises it)");
}

void record_access(trace::Kind kind, trace::Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                   const void* value, unsigned value_bytes, const char* file, unsigned line)
{
    record(*tls_lane, kind, space, size, array, offset, value, value_bytes, file, line);
}

void kernel_fault(const char* file, unsigned line, std::string what) { fault(*tls_lane, file, line, std::move(what)); }

}  // namespace detail
}  // namespace wl::emu
