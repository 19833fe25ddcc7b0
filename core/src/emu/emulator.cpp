// CPU SIMT emulator: one fiber per CUDA thread (Boost.Context), a block's
// fibers on one host thread, blocks spread over host threads.
//
// A lane runs until it must wait: at __syncthreads(), at a warp collective,
// and (Lockstep only) before every traced access. The block scheduler below
// decides who runs next; the checks (bounds, uninitialised shared reads, races,
// barrier divergence) run inside the access and synchronisation hooks.
#include "warplab/emu/emulator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <chrono>
#include <bit>
#include <boost/context/detail/fcontext.hpp>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace ctx = boost::context::detail;

namespace wl::emu {

const char* to_string(Schedule s) { return s == Schedule::Lockstep ? "lockstep" : "independent"; }

namespace {
constexpr Schedule kSchedules[] = {Schedule::Independent, Schedule::Lockstep};
}

std::optional<Schedule> parse_schedule(std::string_view name)
{
    for (Schedule s : kSchedules)
        if (name == to_string(s)) return s;
    return std::nullopt;
}

std::vector<std::string> schedule_names()
{
    std::vector<std::string> out;
    for (Schedule s : kSchedules) out.push_back(to_string(s));
    return out;
}

std::string Fault::message() const
{
    std::ostringstream m;
    m << "kernel " << kernel << ", block (" << block.x << "," << block.y << "," << block.z << "), thread ("
      << thread.x << "," << thread.y << "," << thread.z << ") [warp " << warp << ", lane " << lane << "]: " << what;
    if (!file.empty()) m << " (at " << file << ":" << line << ")";
    return m.str();
}

// ---------------------------------------------------------------- memory --

namespace {
struct Allocation {
    std::size_t bytes;
};
std::mutex g_alloc_mutex;
std::map<std::uintptr_t, Allocation> g_allocations;  // base -> size
constexpr unsigned char kPoisonByte = 0xCD;
}  // namespace

namespace detail {
const char* argument_name(std::uint8_t position)
{
    static const auto names = [] {
        std::vector<std::string> v;
        for (int i = 0; i < 256; ++i) v.push_back("argument " + std::to_string(i));
        return v;
    }();
    return names[position].c_str();
}

std::uint64_t elements_from(const void* p, std::size_t elem_size)
{
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard lock(g_alloc_mutex);
    auto it = g_allocations.upper_bound(addr);
    if (it == g_allocations.begin()) throw LaunchError("a kernel argument is not emulator device memory");
    --it;
    const std::uintptr_t end = it->first + it->second.bytes;
    if (addr > end) throw LaunchError("a kernel argument is not emulator device memory");
    return (end - addr) / elem_size;
}
}  // namespace detail

Emulator::Emulator() = default;
Emulator::~Emulator()
{
    while (!owned_.empty()) free(owned_.back());
}

void* Emulator::alloc_bytes(std::size_t bytes)
{
    void* p = std::aligned_alloc(256, std::max<std::size_t>(256, (bytes + 255) / 256 * 256));
    if (!p) throw LaunchError("emulator: out of host memory for a " + std::to_string(bytes) + "-byte allocation");
    std::memset(p, kPoisonByte, bytes);
    std::lock_guard lock(g_alloc_mutex);
    g_allocations[reinterpret_cast<std::uintptr_t>(p)] = Allocation{bytes};
    owned_.push_back(p);
    return p;
}

void Emulator::free(void* p)
{
    if (!p) return;  // as cudaFree(nullptr)
    const auto it = std::find(owned_.begin(), owned_.end(), p);
    if (it == owned_.end()) throw LaunchError("emulator: free of memory this emulator did not allocate, or freed already");
    owned_.erase(it);
    {
        std::lock_guard lock(g_alloc_mutex);
        g_allocations.erase(reinterpret_cast<std::uintptr_t>(p));
    }
    std::free(p);
}

// ------------------------------------------------------------- run state --

namespace detail {
thread_local const ThreadView* tls_view = nullptr;
}

namespace {

using detail::CollectiveOp;
using trace::Kind;
using trace::LaneRecord;
using trace::Space;

// AtActiveMask: in __activemask(), until no lane of its warp can run (see release_active_masks).
// AtMbarrier: in mbarrier.try_wait, until the mbarrier changes (see wake_mbarrier_waiters).
enum class LaneState { Runnable, AtCollective, AtBarrier, AtActiveMask, AtMbarrier, Done, Faulted };

struct Collective {
    CollectiveOp op;
    unsigned mask = 0;
    unsigned arrived = 0;
    unsigned waiting = 0;  // participants that have not yet taken their result
    int width = 32;
    bool in_use = false;
    std::uint64_t in[32][5];  // 16 bytes a lane; 40 for mma.sync's fragments
    int arg[32];
    std::uint64_t out[32][2];
};

struct Block;

// What the scheduler and the barrier touch at every resume comes first, the
// vector clock (read only by race checks) last: fewer cache lines per resume.
struct Lane {
    LaneState state = LaneState::Runnable;
    bool started = false;  // explicit-state lanes: has the body run for this lane yet
    bool spun = false;     // gave up its turn in a spin loop (spin_yield): runnable, but not again this round
    detail::BarrierOp bar_op = detail::BarrierOp::None;
    Block* block = nullptr;
    detail::ThreadView view;
    unsigned flat = 0, warp = 0, lane = 0;
    std::uint32_t seq = 0, epoch = 0, sub = 0, declared = 0;
    unsigned bar_value = 0;  // bar.red: this lane's input, then the block's result; activemask: the mask
    const char* wait_file = "";
    unsigned wait_line = 0;
    Collective* collective = nullptr;
    ctx::fcontext_t fiber = nullptr;  // where to resume this lane
    ctx::fcontext_t sched = nullptr;  // where this lane returns to the scheduler
    // Independent schedule: this lane's own clock, and what it learnt of the
    // other lanes' clocks through partial-mask collectives (full-warp ones are
    // kept once, in Warp::full_vc). vc holds something only once has_vc is
    // set (at the lane's first partial-mask collective in the block): until
    // then it reads as zeros, so that a block's start need not clear 128 bytes a lane.
    std::uint32_t clock = 1;
    bool has_vc = false;
    std::uint32_t vc[32] = {};
    std::uint32_t learnt(unsigned k) const { return has_vc ? vc[k] : 0; }
    // AtMbarrier: the mbarrier waited on, and its name for a deadlock's message.
    const void* wait_bar = nullptr;
    const char* wait_bar_name = "";
    long long wait_bar_index = 0;
};

struct Warp {
    // Collectives in progress. A warp has at most one per distinct (op, mask)
    // that its lanes are waiting in, so a few slots suffice; more are added,
    // up to kMaxCollectives (a deque: lanes keep pointers to the slots in use).
    std::deque<Collective> pending = std::deque<Collective>(8);
    Collective* open = nullptr;  // the collective a lane most recently joined
    std::uint32_t full_vc[32];   // each lane's clock at the last full-warp collective
    std::uint32_t round = 0;  // Lockstep: one round = one warp instruction
    unsigned lanes = 0;
    unsigned runnable = 0;    // lanes in LaneState::Runnable (kept by set_state)
};

// The last write and the last read of one 4-byte shared word.
// Trivial types (no member initialisers): the shadow of the whole shared
// arena is allocated uninitialised and reset, array by array, as arrays are declared.
struct AccessStamp {
    std::uint32_t thread, epoch, clock;
    const char* file;
    unsigned line;
    bool valid, atomic;
    std::uint8_t bytes;  // which of the word's 4 bytes the access touched (bit i = byte i)
};
// A write is checked against the last read and against the last read from
// another warp than that one, so that one warp's ordered reads do not hide
// another warp's unordered read.
struct WordShadow {
    std::uint8_t initialised;  // bytes of the word written so far in this block (bit i = byte i)
    AccessStamp write, read, read_other_warp;
};

struct SharedDecl {
    ArrayMeta meta;
    std::size_t offset;
    std::size_t bytes;
};

constexpr std::size_t kSharedCapacity = 228 * 1024;  // H100's per-block maximum
constexpr std::size_t kStackBytes = 64 * 1024;

struct Block {
    const char* kernel = "";
    const LaunchOptions* opt = nullptr;
    detail::KernelBody body{};
    uint3 idx;
    dim3 dim, grid;
    unsigned flat = 0, threads = 0;
    bool watched = false;
    struct LaneSpan {
        Lane* first;
        unsigned count;
        Lane* begin() const { return first; }
        Lane* end() const { return first + count; }
        Lane& operator[](std::size_t i) const { return first[i]; }
    } lanes{nullptr, 0};
    struct WarpSpan {
        Warp* first;
        std::size_t count;
        Warp* data() const { return first; }
        std::size_t size() const { return count; }
        Warp& operator[](std::size_t i) const { return first[i]; }
    } warps{nullptr, 0};
    std::vector<SharedDecl> decls;
    std::size_t shared_used = 0;
    unsigned char* arena = nullptr;
    WordShadow* shadow = nullptr;
    std::vector<LaneRecord>* records = nullptr;
    std::size_t max_records = 0;  // the watched block records no more (records_cut)
    bool records_cut = false;
    std::vector<Warning> warnings;  // one per site and kind
    std::optional<Fault> fault;
    // Kept as lanes arrive, so that the common case of a barrier (every lane
    // there, at one site) and an empty __activemask() queue cost no scan of the block.
    unsigned at_barrier = 0;            // lanes waiting at __syncthreads() in this interval
    const char* barrier_file = nullptr;  // where the first of them waits
    unsigned barrier_line = 0;
    bool barrier_sites_differ = false;  // some wait elsewhere (or at the same site under another file pointer)
    unsigned barrier_votes = 0;         // bar.red: lanes that arrived with a true value
    unsigned at_active_mask = 0;    // lanes waiting in __activemask()
    unsigned at_mbarrier = 0;       // lanes waiting in mbarrier.try_wait
    // Bulk copies issued and not yet landed: they land when a thread tests
    // their mbarrier, so a read of their bytes before that is caught.
    struct BulkCopy {
        std::size_t dst;  // arena offset
        const unsigned char* src;
        unsigned bytes;
        const void* bar;
        unsigned issuer;
        const char* file;
        unsigned line;
    };
    std::vector<BulkCopy> copies;
};

thread_local Lane* tls_lane = nullptr;

// Every change of a lane's state after the block starts comes through here
// (or through release_barrier, which makes every lane runnable at once and
// sets the counts to match), so that the scheduler knows without a scan
// whether a warp has a lane to run.
inline void set_state(Lane& lane, LaneState s)
{
    Warp& w = lane.block->warps[lane.warp];
    w.runnable += static_cast<unsigned>(s == LaneState::Runnable) - static_cast<unsigned>(lane.state == LaneState::Runnable);
    lane.state = s;
}

// An mbarrier's state, kept in its 8 bytes of shared memory: arrivals the
// current phase still expects (bits 0-19), arrivals each phase expects
// (20-39), transaction bytes still expected (40-61, two's complement: a copy
// may land before its expect_tx), the current phase's parity (bit 63).
struct MbarrierState {
    std::uint64_t pending = 0, expected = 0;
    std::int64_t tx = 0;
    unsigned parity = 0;
};
constexpr std::uint64_t kMbarrierCountMax = (1u << 20) - 1;

MbarrierState load_mbarrier(const void* bar)
{
    std::uint64_t v;
    std::memcpy(&v, bar, 8);
    MbarrierState s;
    s.pending = v & kMbarrierCountMax;
    s.expected = v >> 20 & kMbarrierCountMax;
    s.tx = static_cast<std::int64_t>(v << 2) >> 42;  // bits 40-61, sign-extended
    s.parity = static_cast<unsigned>(v >> 63);
    return s;
}

void store_mbarrier(void* bar, const MbarrierState& s)
{
    const std::uint64_t v = s.pending | s.expected << 20 | (static_cast<std::uint64_t>(s.tx) & ((1ULL << 22) - 1)) << 40 |
                            std::uint64_t(s.parity) << 63;
    std::memcpy(bar, &v, 8);
}

// Per host thread: fiber stacks with a guard page each, the shared arena and its shadow.
class WorkerMemory {
public:
    explicit WorkerMemory(unsigned stacks)
        : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))), slot_(kStackBytes + page_), stacks_(stacks)
    {
        base_ = static_cast<unsigned char*>(
            mmap(nullptr, slot_ * stacks, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
        if (base_ == MAP_FAILED) throw LaunchError("emulator: cannot map fiber stacks");
        for (unsigned i = 0; i < stacks; ++i) mprotect(base_ + i * slot_, page_, PROT_NONE);  // guard below each stack
        arena = std::make_unique_for_overwrite<unsigned char[]>(kSharedCapacity);
        shadow = std::make_unique_for_overwrite<WordShadow[]>(kSharedCapacity / 4);
    }
    ~WorkerMemory() { munmap(base_, slot_ * stacks_); }
    void* stack_top(unsigned i) const { return base_ + (i + 1) * slot_; }
    unsigned stacks() const { return stacks_; }

    std::unique_ptr<unsigned char[]> arena;
    std::unique_ptr<WordShadow[]> shadow;
    std::vector<Lane> lanes;  // reused from block to block
    std::vector<Warp> warps;  // likewise

private:
    std::size_t page_, slot_;
    unsigned stacks_;
    unsigned char* base_;
};

// Worker memory is kept between launches: mapping 1024 guarded stacks and a
// shared arena costs more than a small launch.
class PooledMemory {
public:
    explicit PooledMemory(unsigned stacks)
    {
        std::lock_guard lock(mutex());
        auto& free_list = pool();
        for (auto it = free_list.begin(); it != free_list.end(); ++it)
            if ((*it)->stacks() >= stacks) {
                mem_ = std::move(*it);
                free_list.erase(it);
                return;
            }
        mem_ = std::make_unique<WorkerMemory>(std::max(stacks, 1024u));
    }
    ~PooledMemory()
    {
        std::lock_guard lock(mutex());
        pool().push_back(std::move(mem_));
    }
    PooledMemory(const PooledMemory&) = delete;
    PooledMemory& operator=(const PooledMemory&) = delete;
    WorkerMemory& get() { return *mem_; }

private:
    static std::mutex& mutex()
    {
        static std::mutex m;
        return m;
    }
    static std::vector<std::unique_ptr<WorkerMemory>>& pool()
    {
        static std::vector<std::unique_ptr<WorkerMemory>> p;
        return p;
    }
    std::unique_ptr<WorkerMemory> mem_;
};

// ------------------------------------------------------------ fibers --

[[noreturn]] void lane_entry(ctx::transfer_t t)
{
    Lane* lane = static_cast<Lane*>(t.data);
    lane->sched = t.fctx;
    lane->block->body.call(lane->block->body.ctx);
    set_state(*lane, LaneState::Done);
    ctx::jump_fcontext(lane->sched, nullptr);
    std::abort();  // a finished lane is never resumed
}

// Explicit-state lanes (KernelBody::step) leave the body by returning; a
// fault unwinds to resume() with this.
struct LaneStopped {};

bool explicit_state(const Lane& lane) { return lane.block->body.step != nullptr; }

// Back to the scheduler; returns when the scheduler resumes this lane. An
// explicit-state lane returns from its step instead (its caller sees the state).
void yield_to_scheduler(Lane& lane)
{
    if (explicit_state(lane)) return;
    ctx::transfer_t t = ctx::jump_fcontext(lane.sched, nullptr);
    lane.sched = t.fctx;
}

// Fiber switches made by this host thread: each resume is two (there and back).
thread_local std::uint64_t tls_switches = 0;

// Inlined into the scheduler's loops: it runs at every resume.
[[gnu::always_inline]] inline void resume(Lane& lane)
{
    tls_lane = &lane;
    detail::tls_view = &lane.view;
    if (const detail::KernelBody& body = lane.block->body; body.step) {
        try {
            const bool first = !lane.started;
            lane.started = true;
            if (body.step(body.ctx, lane.flat, first)) set_state(lane, LaneState::Done);
        } catch (const LaneStopped&) {
        }
        tls_lane = nullptr;
        tls_switches += 2;  // counted as a fiber's resume and yield, so that the counts compare
        return;
    }
    ctx::transfer_t t = ctx::jump_fcontext(lane.fiber, &lane);
    lane.fiber = t.fctx;
    tls_lane = nullptr;
    tls_switches += 2;
}

// The next lane to run: its hot fields on their way into the cache.
inline void prefetch_lane(const Lane& next)
{
    __builtin_prefetch(&next);
    __builtin_prefetch(reinterpret_cast<const char*>(&next) + 64);
}

// A step_warp body's pass over one warp: the lanes in the scheduler's order.
struct WarpPass {
    Block* block = nullptr;
    Lane* lanes = nullptr;  // the warp's
    const unsigned* order = nullptr;
    unsigned count = 0;
    Lane* running = nullptr;  // the entered lane
    bool ran = false;
};
thread_local WarpPass tls_pass;

// What resume() does after a step, for the lane a pass has entered.
inline void leave_turn(WarpPass& p, bool ended)
{
    if (ended) set_state(*p.running, LaneState::Done);
    p.running = nullptr;
    tls_lane = nullptr;
    tls_switches += 2;
}

// Stops the launch: the lane never runs again, the scheduler sees the fault.
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

std::string thread_name(const Block& b, unsigned flat)
{
    const dim3& d = b.dim;
    std::ostringstream s;
    s << "thread (" << flat % d.x << "," << (flat / d.x) % d.y << "," << flat / (d.x * d.y) << ")";
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
    r.file_hash = trace::file_hash(file ? file : "");
    r.kind = kind;
    r.space = space;
    r.size = static_cast<std::uint8_t>(size);
    r.array = array;
    r.offset = offset;
    if (value) std::memcpy(r.value, value, std::min<unsigned>(value_bytes, sizeof r.value));
    std::vector<LaneRecord>& out = *b.records;
    if (out.size() >= b.max_records) {  // memory stays bounded however long the kernel runs
        b.records_cut = true;
        return;
    }
    if (out.size() == out.capacity())  // grown by doubling, but never past the cap
        out.reserve(std::min(b.max_records, std::max<std::size_t>(1024, 2 * out.capacity())));
    out.push_back(r);
}

// Only the watched blocks record; the others pay one branch.
inline void record(Lane& lane, Kind kind, Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                   const void* value, unsigned value_bytes, const char* file, unsigned line)
{
    if (lane.block->watched) record_watched(lane, kind, space, size, array, offset, value, value_bytes, file, line);
}

// ------------------------------------------------------ race detection --

// Two accesses by different threads in one barrier interval are ordered only
// by a warp synchronisation between them: a lockstep round (Lockstep) or a
// collective both lanes joined (Independent, vector clocks).
std::uint32_t lane_clock(const Lane& lane)
{
    const Block& b = *lane.block;
    return b.opt->schedule == Schedule::Lockstep ? b.warps[lane.warp].round : lane.clock;
}

inline bool ordered(const Lane& now, const AccessStamp& before)
{
    if (!before.valid || before.epoch != now.epoch || before.thread == now.flat) return true;
    if (before.thread / 32 != now.warp) return false;
    if (now.block->opt->schedule == Schedule::Lockstep) return before.clock != now.block->warps[now.warp].round;
    const unsigned k = before.thread % 32;
    return std::max(now.learnt(k), now.block->warps[now.warp].full_vc[k]) >= before.clock;
}

[[noreturn, gnu::cold, gnu::noinline]] void race_fault(Lane& lane, const Access& a, std::uint64_t word,
                                                      const AccessStamp& other, bool other_writes)
{
    const char* this_kind = a.kind == Kind::Load ? "read" : "written";
    std::ostringstream what;
    what << "data race on shared memory: " << a.array->name << "[" << a.index << "] (word " << word << ") is "
         << this_kind << " here and " << (other_writes ? "written" : "read") << " by "
         << thread_name(*lane.block, other.thread) << other_site(a.file, a.line, other.file, other.line)
         << ", with no __syncthreads() or __syncwarp() between the two";
    fault(lane, a.file, a.line, what.str());
}

// A warning at one thread's access, kept once per site and text.
void warn(Block& b, unsigned thread, const char* file, unsigned line, std::string what)
{
    for (Warning& w : b.warnings)
        if (w.at.line == line && w.at.what == what && w.at.file == (file ? file : "")) {
            ++w.count;
            return;
        }
    const dim3& d = b.dim;
    const uint3 idx{thread % d.x, (thread / d.x) % d.y, thread / (d.x * d.y)};
    b.warnings.push_back(Warning{Fault{b.kernel, b.idx, idx, thread / 32, thread % 32, file ? file : "", line, std::move(what)}});
}

// What this access and an unordered one of another thread are under CUDA's
// rules (NVIDIA, "CUDA C++ Programming Guide": a warp instruction's writes to
// one location from several lanes: one of them lands; atomics are not data
// races among themselves): a race stops the launch, the rest are warnings or nothing.
struct AccessFacts {
    bool atomic;              // an atomic, or a strong (.acquire/.relaxed/.volatile) load
    const void* stored;       // a plain store's bytes, else null
};
[[gnu::cold, gnu::noinline]] void clash(Lane& lane, const Access& a, std::uint64_t word, std::uint8_t bytes,
                                        const AccessStamp& other, bool other_writes, const AccessFacts& facts)
{
    const Block& b = *lane.block;
    const bool same_instruction = facts.stored && other_writes && !other.atomic && other.thread / 32 == lane.warp &&
                                  other.line == a.line && other.file == a.file;
    if (same_instruction) {
        const unsigned char* now = b.arena + word * 4;
        const auto* mine = static_cast<const unsigned char*>(facts.stored) - (static_cast<unsigned char*>(a.ptr) - b.arena) + word * 4;
        for (unsigned k = 0; k < 4; ++k)
            if ((bytes >> k & 1) && now[k] != mine[k]) {
                warn(*lane.block, lane.flat, a.file, a.line, "lanes of one store instruction write different values to " + std::string(a.array->name) + "[" +
                                  std::to_string(a.index) + "]: one lane's value lands (which one, CUDA leaves undefined)");
                return;
            }
        return;  // the same bytes: whichever lands, the word is the same
    }
    const bool plain_read_against_atomic = (facts.atomic && other_writes == false && !other.atomic) ||
                                           (a.kind == Kind::Load && !facts.atomic && other.atomic);
    if (plain_read_against_atomic) {
        // Named at the plain read, whichever of the two came second.
        const bool read_is_this = a.kind == Kind::Load && !facts.atomic;
        warn(*lane.block, read_is_this ? lane.flat : other.thread, read_is_this ? a.file : other.file,
             read_is_this ? a.line : other.line,
             "a plain read of " + std::string(a.array->name) + "[" + std::to_string(a.index) +
                 "] races with atomics of other threads (it may see a stale value, as atomicCAS loops allow)");
        return;
    }
    race_fault(lane, a, word, other, other_writes);
}

// Inline: nearly every access meets no earlier one of this interval from another thread.
inline void check_race(Lane& lane, const Access& a, std::uint64_t word, std::uint8_t bytes, const AccessStamp& other,
                       bool other_writes, const AccessFacts& facts)
{
    if ((facts.atomic && other.atomic) || !(bytes & other.bytes) || ordered(lane, other)) return;
    clash(lane, a, word, bytes, other, other_writes, facts);
}

[[noreturn, gnu::cold, gnu::noinline]] void uninitialised_fault(Lane& lane, const Access& a)
{
    const Block& b = *lane.block;
    const auto byte = static_cast<std::size_t>(static_cast<unsigned char*>(a.ptr) - b.arena);
    std::ostringstream what;
    for (const Block::BulkCopy& c : b.copies)
        if (byte + a.size > c.dst && byte < c.dst + c.bytes) {
            what << "read of shared memory that a bulk copy has not filled yet: " << a.array->name << "[" << a.index
                 << "] is written by the cp.async.bulk that " << thread_name(b, c.issuer) << " issued at "
                 << site(c.file, c.line) << ", which has landed only once a thread has waited on its mbarrier";
            fault(lane, a.file, a.line, what.str());
        }
    what << "read of uninitialised shared memory: " << a.array->name << "[" << a.index
         << "] was never written in this block";
    fault(lane, a.file, a.line, what.str());
}

inline void check_shared(Lane& lane, const Access& a, const void* stored = nullptr, bool strong = false)
{
    Block& b = *lane.block;
    const auto byte = static_cast<std::size_t>(static_cast<unsigned char*>(a.ptr) - b.arena);
    const bool reads = a.kind != Kind::Store;
    const bool writes = a.kind != Kind::Load;
    const bool atomic = a.kind == Kind::Atomic || strong;
    const AccessFacts facts{atomic, a.kind == Kind::Store ? stored : nullptr};
    AccessStamp stamp{lane.flat, lane.epoch, lane_clock(lane), a.file, a.line, true, atomic, 0};
    const std::size_t end = byte + a.size;
    for (std::size_t w = byte / 4; w < (end + 3) / 4; ++w) {
        // Bytes of word w this access touches: char and short elements share words.
        const std::size_t lo = std::max(byte, w * 4), hi = std::min(end, w * 4 + 4);
        stamp.bytes = static_cast<std::uint8_t>(((1u << (hi - lo)) - 1) << (lo - w * 4));
        WordShadow& s = b.shadow[w];
        if (reads && (s.initialised & stamp.bytes) != stamp.bytes) uninitialised_fault(lane, a);
        check_race(lane, a, w, stamp.bytes, s.write, true, facts);
        if (writes) {
            check_race(lane, a, w, stamp.bytes, s.read, false, facts);
            check_race(lane, a, w, stamp.bytes, s.read_other_warp, false, facts);
            s.write = stamp;
            s.initialised |= stamp.bytes;
        } else {
            if (s.read.valid && s.read.thread / 32 != lane.warp) s.read_other_warp = s.read;
            s.read = stamp;
        }
    }
}

}  // namespace
}  // namespace wl::emu

// ------------------------------------------------ hooks called by kernels --

namespace wl::detail {

void before_access(const Access& a)
{
    using namespace wl::emu;
    Lane& lane = *tls_lane;
    if (lane.block->opt->schedule == Schedule::Lockstep) yield_to_scheduler(lane);  // one round per access
    if (a.index < 0 || static_cast<std::uint64_t>(a.index) >= a.array->count) {
        std::ostringstream what;
        const char* verb = a.kind == trace::Kind::Load ? "load" : a.kind == trace::Kind::Store ? "store" : "atomic";
        what << "out-of-bounds " << verb << ": " << a.array->name << "[" << a.index << "] is outside its "
             << a.array->count << " elements";
        fault(lane, a.file, a.line, what.str());
    }
    if (a.array->space == trace::Space::Shared) check_shared(lane, a);
}

void after_access(const Access& a, const void* value, unsigned bytes)
{
    using namespace wl::emu;
    Lane& lane = *tls_lane;
    record(lane, a.kind, a.array->space, a.size, a.array->id, a.byte_offset(), value, bytes, a.file, a.line);
}

}  // namespace wl::detail

namespace wl::emu::detail {

// The lane a shuffle reads from, as PTX shfl.sync defines it: the segment of
// `width` lanes bounds up/down/idx; xor may also read an earlier segment but
// never a later one. Out of range: the caller's own value.
unsigned shuffle_source(CollectiveOp op, unsigned lane, int arg, int width, bool* in_range)
{
    const unsigned first = lane & ~static_cast<unsigned>(width - 1);
    const unsigned last = first + static_cast<unsigned>(width) - 1;
    const unsigned b = static_cast<unsigned>(arg) & 31u;
    unsigned src = lane;
    bool ok = true;
    switch (op) {
    case CollectiveOp::ShflIdx: src = first + (b & static_cast<unsigned>(width - 1)); break;
    case CollectiveOp::ShflUp: ok = lane >= first + b; src = ok ? lane - b : lane; break;
    case CollectiveOp::ShflDown: ok = lane + b <= last; src = ok ? lane + b : lane; break;
    case CollectiveOp::ShflXor: ok = (lane ^ b) <= last; src = ok ? (lane ^ b) : lane; break;
    default: break;
    }
    if (in_range) *in_range = ok;
    return src;
}

void* declare_shared(unsigned elem_size, unsigned long long count, const char* name, const char* file,
                     unsigned line, ArrayMeta& meta_out, bool zeroed)
{
    Lane& lane = *tls_lane;
    Block& b = *lane.block;
    const unsigned k = lane.declared++;
    const std::size_t bytes = elem_size * count;
    if (k == b.decls.size()) {
        const std::size_t offset = (b.shared_used + 15) / 16 * 16;
        if (offset + bytes > kSharedCapacity) {
            fault(lane, file, line,
                  "shared memory exhausted: " + std::string(name) + " needs " + std::to_string(bytes) +
                      " bytes, the block already uses " + std::to_string(offset) + " of " +
                      std::to_string(kSharedCapacity));
        }
        ArrayMeta m;
        m.space = trace::Space::Shared;
        m.id = static_cast<std::uint8_t>(k);
        m.elem_size = elem_size;
        m.count = count;
        m.name = name;
        b.decls.push_back(SharedDecl{m, offset, bytes});
        b.shared_used = offset + bytes;
        std::memset(b.arena + offset, zeroed ? 0 : 0xCD, bytes);
        WordShadow fresh{};
        fresh.initialised = zeroed ? 0xF : 0;
        std::fill(b.shadow + offset / 4, b.shadow + (offset + bytes + 3) / 4, fresh);
    } else if (b.decls[k].bytes != bytes) {
        fault(lane, file, line, "threads of one block declared different shared arrays");
    }
    if (lane.flat == 0) {
        char label[16] = {};
        std::memcpy(label, name, std::min(sizeof label, std::strlen(name)));
        record(lane, trace::Kind::Declare, trace::Space::Shared, elem_size, static_cast<std::uint8_t>(k), count,
               label, sizeof label, file, line);
    }
    meta_out = b.decls[k].meta;
    return b.arena + b.decls[k].offset;
}

void syncthreads(const char* file, unsigned line) { barrier(BarrierOp::None, 0, file, line); }

unsigned barrier(BarrierOp op, unsigned value, const char* file, unsigned line)
{
    barrier_arrive(op, value, file, line);
    yield_to_scheduler(*tls_lane);
    return barrier_result();
}

namespace {
// `count` more lanes of the block wait at the barrier at file:line: kept so
// that settle_barrier knows without a scan whether all wait at one site.
void count_at_barrier(Block& b, unsigned count, const char* file, unsigned line)
{
    if (b.at_barrier == 0) {
        b.barrier_file = file;
        b.barrier_line = line;
        b.barrier_sites_differ = false;
    } else {
        b.barrier_sites_differ |= b.barrier_file != file || b.barrier_line != line;
    }
    b.at_barrier += count;
}

// A lane's own part of arriving at a barrier (the block's counts aside).
void wait_at_barrier(Lane& lane, BarrierOp op, unsigned value, const char* file, unsigned line)
{
    record(lane, trace::Kind::SyncThreads, trace::Space::None, 0, 0, 0, nullptr, 0, file, line);
    lane.wait_file = file;
    lane.wait_line = line;
    lane.bar_op = op;
    lane.bar_value = value;
}

// A batch of the pass's lanes has arrived somewhere: their turns end.
void end_turns(WarpPass& p, unsigned count)
{
    p.running = nullptr;
    tls_lane = nullptr;
    tls_switches += 2 * count;
}
}  // namespace

void barrier_arrive(BarrierOp op, unsigned value, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    wait_at_barrier(lane, op, value, file, line);
    set_state(lane, LaneState::AtBarrier);
    Block& b = *lane.block;
    b.barrier_votes += value != 0;
    count_at_barrier(b, 1, file, line);
}

unsigned barrier_result() { return tls_lane->bar_value; }

void barrier_arrive_lanes(const unsigned* flats, unsigned count, const char* file, unsigned line)
{
    WarpPass& p = tls_pass;
    Block& b = *p.block;
    for (unsigned i = 0; i < count; ++i) {
        Lane& lane = b.lanes[flats[i]];
        wait_at_barrier(lane, BarrierOp::None, 0, file, line);
        lane.state = LaneState::AtBarrier;  // from Runnable: the warp's count follows below
    }
    if (count == 0) return;
    b.warps[b.lanes[flats[0]].warp].runnable -= count;
    count_at_barrier(b, count, file, line);
    end_turns(p, count);
}

void wait_turn() { yield_to_scheduler(*tls_lane); }

unsigned pass_lanes(LaneTurn (&lanes)[32])
{
    WarpPass& p = tls_pass;
    unsigned n = 0;
    for (unsigned i = 0; i < p.count; ++i) {
        Lane& lane = p.lanes[p.order[i]];
        if (lane.state != LaneState::Runnable) continue;
        lanes[n++] = LaneTurn{lane.flat, !lane.started};
        lane.started = true;
    }
    p.ran = n != 0;
    return n;
}

void enter_lane(unsigned flat)
{
    WarpPass& p = tls_pass;
    Lane& lane = p.block->lanes[flat];
    p.running = &lane;
    tls_lane = &lane;
    detail::tls_view = &lane.view;
}

void leave_lane(bool ended) { leave_turn(tls_pass, ended); }

// ------------------------------------------- the PTX interpreter's entries --

LaneInfo current_lane()
{
    const Lane& lane = *tls_lane;
    return LaneInfo{lane.flat, lane.warp, lane.lane, lane.block->watched,
                    lane.block->opt->schedule == Schedule::Lockstep};
}

void access_round()
{
    Lane& lane = *tls_lane;
    if (lane.block->opt->schedule == Schedule::Lockstep) yield_to_scheduler(lane);
}

void check_shared_access(trace::Kind kind, void* ptr, unsigned size, const char* name, long long index,
                         const char* file, unsigned line, const void* stored, bool strong)
{
    ArrayMeta meta;
    meta.space = trace::Space::Shared;
    meta.name = name;
    const Access a{&meta, file, line, kind, size, index, ptr};
    check_shared(*tls_lane, a, stored, strong);
}

bool spin_yield()
{
    Lane& lane = *tls_lane;
    lane.spun = true;
    if (explicit_state(lane)) return true;
    yield_to_scheduler(lane);
    return false;
}

void step_budget_fault(std::uint64_t steps, const char* file, unsigned line)
{
    fault(*tls_lane, file, line,
          "the kernel did not finish within " + std::to_string(steps) +
              " instructions per thread: an endless loop? (this thread was on this line when the budget ran out; "
              "--max-steps raises it)");
}

void record_access(trace::Kind kind, trace::Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                   const void* value, unsigned value_bytes, const char* file, unsigned line)
{
    record(*tls_lane, kind, space, size, array, offset, value, value_bytes, file, line);
}

void kernel_fault(const char* file, unsigned line, std::string what) { fault(*tls_lane, file, line, std::move(what)); }

unsigned active_mask()
{
    active_mask_arrive(nullptr, 0);
    yield_to_scheduler(*tls_lane);
    return active_mask_result();
}

void active_mask_arrive(const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    set_state(lane, LaneState::AtActiveMask);
    lane.block->at_active_mask += 1;
    lane.wait_file = file ? file : "";
    lane.wait_line = line;
}

unsigned active_mask_result() { return tls_lane->bar_value; }

// ------------------------------------------ mbarriers and bulk copies --

namespace {

// Lanes waiting on bar try again: it changed.
void wake_mbarrier_waiters(Block& b, const void* bar)
{
    if (b.at_mbarrier == 0) return;
    for (Lane& l : b.lanes)
        if (l.state == LaneState::AtMbarrier && l.wait_bar == bar) {
            set_state(l, LaneState::Runnable);
            b.at_mbarrier -= 1;
        }
}

// Stores the state, first completing the phase if it expects nothing more.
void update_mbarrier(Block& b, void* bar, MbarrierState s)
{
    if (s.pending == 0 && s.tx == 0) {
        s.parity ^= 1;
        s.pending = s.expected;
    }
    store_mbarrier(bar, s);
    wake_mbarrier_waiters(b, bar);
}

void add_tx(Lane& lane, MbarrierState& s, std::int64_t bytes, const char* file, unsigned line)
{
    s.tx += bytes;
    if (s.tx > std::int64_t(kMbarrierCountMax) || s.tx < -std::int64_t(kMbarrierCountMax))
        fault(lane, file, line, "mbarrier transaction count out of range: more than 1048575 bytes expected at once");
}

// The copy engine writes the bytes: they are initialised, and written by no thread.
void land(Block& b, const Block::BulkCopy& c)
{
    std::memcpy(b.arena + c.dst, c.src, c.bytes);
    for (std::size_t w = c.dst / 4; w < (c.dst + c.bytes) / 4; ++w) {
        b.shadow[w].initialised = 0xF;
        b.shadow[w].write.valid = false;
    }
}

// The bulk copies that signal bar land, and count their bytes off it.
void land_copies(Lane& lane, void* bar, MbarrierState& s, const char* file, unsigned line)
{
    Block& b = *lane.block;
    auto it = std::stable_partition(b.copies.begin(), b.copies.end(), [&](const Block::BulkCopy& c) { return c.bar != bar; });
    for (auto c = it; c != b.copies.end(); ++c) {
        land(b, *c);
        add_tx(lane, s, -std::int64_t(c->bytes), file, line);
    }
    b.copies.erase(it, b.copies.end());
}

// A bulk copy's destination word that another thread touched in this barrier
// interval, with nothing to order the two: a race with the copy engine.
void check_overwrite(Lane& lane, std::size_t word, const char* name, long long index, const char* file, unsigned line)
{
    const WordShadow& s = lane.block->shadow[word];
    for (const AccessStamp* other : {&s.write, &s.read, &s.read_other_warp}) {
        if (ordered(lane, *other)) continue;
        std::ostringstream what;
        what << "data race on shared memory: the bulk copy issued here overwrites " << name << "[" << index << "], "
             << (other == &s.write ? "written" : "read") << " by " << thread_name(*lane.block, other->thread)
             << other_site(file, line, other->file, other->line) << ", with no __syncthreads() between the two";
        fault(lane, file, line, what.str());
    }
}

}  // namespace

void mbarrier_init(void* bar, unsigned count, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    if (count == 0 || count > kMbarrierCountMax)
        fault(lane, file, line, "mbarrier.init with count " + std::to_string(count) + ": it must be 1 to 1048575");
    MbarrierState s;
    s.pending = s.expected = count;
    store_mbarrier(bar, s);
    wake_mbarrier_waiters(*lane.block, bar);
}

unsigned mbarrier_arrive(void* bar, unsigned count, unsigned tx, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    MbarrierState s = load_mbarrier(bar);
    const unsigned phase = s.parity;
    add_tx(lane, s, tx, file, line);
    if (count > s.pending)
        fault(lane, file, line, "mbarrier.arrive: more arrivals in this phase than the " + std::to_string(s.expected) +
                                    " its mbarrier.init expects");
    s.pending -= count;
    update_mbarrier(*lane.block, bar, s);
    return phase;
}

bool mbarrier_phase_done(void* bar, unsigned parity, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    MbarrierState s = load_mbarrier(bar);
    if (!lane.block->copies.empty()) {
        land_copies(lane, bar, s, file, line);
        update_mbarrier(*lane.block, bar, s);
        s = load_mbarrier(bar);
    }
    return s.parity != (parity & 1);
}

void mbarrier_block(const void* bar, const char* name, long long index, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    set_state(lane, LaneState::AtMbarrier);
    lane.block->at_mbarrier += 1;
    lane.wait_bar = bar;
    lane.wait_bar_name = name;
    lane.wait_bar_index = index;
    lane.wait_file = file;
    lane.wait_line = line;
    yield_to_scheduler(lane);
}

void bulk_copy(void* dst, const void* src, unsigned bytes, void* bar, const BulkCopyTarget& target, const char* file,
               unsigned line)
{
    Lane& lane = *tls_lane;
    Block& b = *lane.block;
    const auto at = static_cast<std::size_t>(static_cast<unsigned char*>(dst) - b.arena);
    for (std::size_t w = at / 4; w < (at + bytes) / 4; ++w) {
        check_overwrite(lane, w, target.name, target.first_index + static_cast<long long>((w * 4 - at) / target.elem),
                        file, line);
        b.shadow[w].initialised = 0;  // until the copy lands: a read before that is caught
    }
    b.copies.push_back(Block::BulkCopy{at, static_cast<const unsigned char*>(src), bytes, bar, lane.flat, file, line});
    wake_mbarrier_waiters(b, bar);  // a waiter may now see it land
}

bool find_allocation(std::uintptr_t addr, std::uintptr_t& base, std::size_t& bytes)
{
    std::lock_guard lock(g_alloc_mutex);
    auto it = g_allocations.upper_bound(addr);
    if (it == g_allocations.begin()) return false;
    --it;
    if (addr >= it->first + it->second.bytes) return false;
    base = it->first;
    bytes = it->second.bytes;
    return true;
}

namespace {

const char* op_name(CollectiveOp op)
{
    switch (op) {
    case CollectiveOp::SyncWarp: return "__syncwarp";
    case CollectiveOp::ShflIdx: return "__shfl_sync";
    case CollectiveOp::ShflUp: return "__shfl_up_sync";
    case CollectiveOp::ShflDown: return "__shfl_down_sync";
    case CollectiveOp::ShflXor: return "__shfl_xor_sync";
    case CollectiveOp::Ballot: return "__ballot_sync";
    case CollectiveOp::Any: return "__any_sync";
    case CollectiveOp::All: return "__all_sync";
    case CollectiveOp::ReduceAdd: return "__reduce_add_sync";
    case CollectiveOp::Uni: return "vote.uni";
    case CollectiveOp::MatchAny: return "__match_any_sync";
    case CollectiveOp::MatchAll: return "__match_all_sync";
    case CollectiveOp::ReduceMinU: case CollectiveOp::ReduceMinS: return "__reduce_min_sync";
    case CollectiveOp::ReduceMaxU: case CollectiveOp::ReduceMaxS: return "__reduce_max_sync";
    case CollectiveOp::ReduceAnd: return "__reduce_and_sync";
    case CollectiveOp::ReduceOr: return "__reduce_or_sync";
    case CollectiveOp::ReduceXor: return "__reduce_xor_sync";
    case CollectiveOp::MmaTf32: return "mma.sync";
    }
    return "?";
}

trace::Kind op_kind(CollectiveOp op)
{
    if (op == CollectiveOp::SyncWarp) return trace::Kind::SyncWarp;
    if (op >= CollectiveOp::Ballot) return trace::Kind::Vote;
    return trace::Kind::Shuffle;
}

// One per tile of cg::tiled_partition<1>; lockstep tiles of 4 keep two each in flight for 8 masks.
constexpr std::size_t kMaxCollectives = 32;

Collective* free_slot(Warp& w, CollectiveOp op, unsigned mask)
{
    for (Collective& slot : w.pending)
        if (!slot.in_use) {
            slot.op = op;
            slot.mask = mask;
            slot.arrived = 0;
            slot.waiting = static_cast<unsigned>(__builtin_popcount(mask));
            slot.in_use = true;
            return &slot;
        }
    if (w.pending.size() >= kMaxCollectives) return nullptr;
    w.pending.emplace_back();
    return free_slot(w, op, mask);
}

// Vector clocks only matter under Independent. A full-warp collective leaves
// every lane knowing every lane's clock: that is stored once, in full_vc. A
// partial one joins the participants' knowledge: of each other, their own
// clocks; of the lanes outside the mask, the most any participant knew.
void join_clocks(Block& b, Warp& w, unsigned base, unsigned mask)
{
    const unsigned existing = w.lanes == 32 ? ~0u : (1u << w.lanes) - 1;
    if (mask == existing) {
        for (unsigned k = 0; k < w.lanes; ++k) w.full_vc[k] = b.lanes[base + k].clock++;
        return;
    }
    std::uint32_t joined[32];
    for (unsigned k = 0; k < 32; ++k) joined[k] = w.full_vc[k];
    for (unsigned m = mask; m; m &= m - 1) {
        const unsigned p = __builtin_ctz(m);
        const Lane& lane = b.lanes[base + p];
        for (unsigned k = 0; k < 32; ++k) joined[k] = std::max(joined[k], lane.learnt(k));
        joined[p] = lane.clock;
    }
    for (unsigned m = mask; m; m &= m - 1) {
        Lane& lane = b.lanes[base + __builtin_ctz(m)];
        std::memcpy(lane.vc, joined, sizeof joined);
        lane.has_vc = true;
        lane.clock += 1;
    }
}

// redux.sync over the 32-bit inputs of the lanes in the mask.
std::uint32_t reduce_lanes(const Collective& c)
{
    const unsigned first = __builtin_ctz(c.mask);
    auto u = [&](unsigned l) { return static_cast<std::uint32_t>(c.in[l][0]); };
    std::uint32_t acc = u(first);
    for (unsigned m = c.mask & (c.mask - 1); m; m &= m - 1) {
        const std::uint32_t v = u(__builtin_ctz(m));
        switch (c.op) {
        case CollectiveOp::ReduceMinU: acc = std::min(acc, v); break;
        case CollectiveOp::ReduceMaxU: acc = std::max(acc, v); break;
        case CollectiveOp::ReduceMinS: acc = static_cast<std::uint32_t>(std::min(static_cast<std::int32_t>(acc), static_cast<std::int32_t>(v))); break;
        case CollectiveOp::ReduceMaxS: acc = static_cast<std::uint32_t>(std::max(static_cast<std::int32_t>(acc), static_cast<std::int32_t>(v))); break;
        case CollectiveOp::ReduceAnd: acc &= v; break;
        case CollectiveOp::ReduceOr: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    return acc;
}

// A float's top 19 bits, as the tensor cores read a TF32 operand (the 13 low
// mantissa bits are ignored).
double tf32(std::uint64_t word)
{
    return std::bit_cast<float>(static_cast<std::uint32_t>(word) & 0xFFFFE000u);
}

// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: D = A·B + C for the
// warp's 16×8 piece of C. Lane l = 4·group + t holds, in PTX's fragment
// layout, a0..a3 = A[group][t], A[group + 8][t], A[group][t + 4],
// A[group + 8][t + 4]; b0, b1 = B[t][group], B[t + 4][group]; c0..c3 (and
// d0..d3) = C[group][2t], C[group][2t + 1], C[group + 8][2t], C[group + 8][2t + 1].
// The products of TF32 inputs are exact; each element's eight and its C are
// summed in double and rounded once to float. The hardware's adder rounds in
// its own, undocumented way, so a GPU's D may differ in its last bits.
void multiply_tf32_16x8x8(Collective& c)
{
    double a[16][8], b[8][8], acc[16][8];
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        std::uint32_t w[10];
        std::memcpy(w, c.in[l], sizeof w);
        a[g][t] = tf32(w[0]), a[g + 8][t] = tf32(w[1]), a[g][t + 4] = tf32(w[2]), a[g + 8][t + 4] = tf32(w[3]);
        b[t][g] = tf32(w[4]), b[t + 4][g] = tf32(w[5]);
        acc[g][2 * t] = std::bit_cast<float>(w[6]), acc[g][2 * t + 1] = std::bit_cast<float>(w[7]);
        acc[g + 8][2 * t] = std::bit_cast<float>(w[8]), acc[g + 8][2 * t + 1] = std::bit_cast<float>(w[9]);
    }
    float d[16][8];
    for (unsigned i = 0; i < 16; ++i)
        for (unsigned j = 0; j < 8; ++j) {
            double sum = acc[i][j];
            for (unsigned k = 0; k < 8; ++k) sum += a[i][k] * b[k][j];
            d[i][j] = static_cast<float>(sum);
        }
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        const float out[4] = {d[g][2 * t], d[g][2 * t + 1], d[g + 8][2 * t], d[g + 8][2 * t + 1]};
        std::memcpy(c.out[l], out, sizeof out);
    }
}

void complete(Block& b, Warp& w, Collective& c)
{
    const unsigned base = static_cast<unsigned>(&w - b.warps.data()) * 32;
    if (c.op == CollectiveOp::MmaTf32) {
        // No step and no clock join: mma.sync orders no memory accesses.
        multiply_tf32_16x8x8(c);
        for (unsigned m = c.mask; m; m &= m - 1) set_state(b.lanes[base + __builtin_ctz(m)], LaneState::Runnable);
        return;
    }
    unsigned ballot = 0, sum = 0;
    if (c.op >= CollectiveOp::Ballot) {
        for (unsigned m = c.mask; m; m &= m - 1) {
            const unsigned l = __builtin_ctz(m);
            if (c.in[l][0]) ballot |= 1u << l;
            sum += static_cast<unsigned>(c.in[l][0]);
        }
    }
    if (b.opt->schedule == Schedule::Independent) join_clocks(b, w, base, c.mask);
    for (unsigned m = c.mask; m; m &= m - 1) {
        const unsigned l = __builtin_ctz(m);
        Lane& lane = b.lanes[base + l];
        switch (c.op) {
        case CollectiveOp::Ballot: c.out[l][0] = ballot; break;
        case CollectiveOp::Any: c.out[l][0] = ballot != 0; break;
        case CollectiveOp::All: c.out[l][0] = ballot == c.mask; break;
        case CollectiveOp::ReduceAdd: c.out[l][0] = sum; break;
        case CollectiveOp::Uni: c.out[l][0] = ballot == 0 || ballot == c.mask; break;
        case CollectiveOp::MatchAny:
        case CollectiveOp::MatchAll: {
            unsigned same = 0;
            for (unsigned m2 = c.mask; m2; m2 &= m2 - 1) {
                const unsigned k = __builtin_ctz(m2);
                if (c.in[k][0] == c.in[l][0]) same |= 1u << k;
            }
            c.out[l][0] = c.op == CollectiveOp::MatchAny ? same : (same == c.mask ? c.mask : 0);
            c.out[l][1] = same == c.mask;  // match.all's predicate
            break;
        }
        case CollectiveOp::ReduceMinU: case CollectiveOp::ReduceMaxU: case CollectiveOp::ReduceMinS:
        case CollectiveOp::ReduceMaxS: case CollectiveOp::ReduceAnd: case CollectiveOp::ReduceOr:
        case CollectiveOp::ReduceXor: c.out[l][0] = reduce_lanes(c); break;
        case CollectiveOp::SyncWarp: break;
        default: {
            const unsigned src = shuffle_source(c.op, l, c.arg[l], c.width);
            if (!(c.mask >> src & 1) && !b.fault) {
                // Reported by the lane that completed the collective (the running fiber).
                b.fault = Fault{b.kernel, b.idx, lane.view.thread_idx, lane.warp, lane.lane, lane.wait_file,
                                lane.wait_line,
                                std::string(op_name(c.op)) + " reads lane " + std::to_string(src) +
                                    ", which is not in the mask"};
            }
            c.out[l][0] = c.in[src][0];
            c.out[l][1] = c.in[src][1];
        }
        }
        lane.sub += 1;
        set_state(lane, LaneState::Runnable);
    }
}

}  // namespace

void collective(CollectiveOp op, unsigned mask, const void* in, unsigned bytes, int arg, int width, void* out,
                const char* file, unsigned line)
{
    collective_arrive(op, mask, in, bytes, arg, width, file, line);
    yield_to_scheduler(*tls_lane);
    collective_take(out, bytes);
}

void collective_take(void* out, unsigned bytes)
{
    Lane& lane = *tls_lane;
    Collective* c = lane.collective;
    if (out) std::memcpy(out, c->out[lane.lane], bytes);
    lane.collective = nullptr;
    if (--c->waiting == 0) c->in_use = false;  // every participant has taken its result
}

namespace {
// One lane's arrival at a warp collective (it waits there until the collective completes).
inline void arrive_at_collective(Lane& lane, CollectiveOp op, unsigned mask, const void* in, unsigned bytes, int arg,
                                 int width, const char* file, unsigned line)
{
    Block& b = *lane.block;
    Warp& w = b.warps[lane.warp];
    std::uint64_t value[5] = {};
    if (in) std::memcpy(value, in, bytes);
    if (op != CollectiveOp::MmaTf32) record(lane, op_kind(op), trace::Space::None, bytes, 0, 0, value, 16, file, line);
    if (!(mask >> lane.lane & 1)) {
        std::ostringstream what;
        what << op_name(op) << " with mask 0x" << std::hex << mask << " that does not include the calling lane";
        fault(lane, file, line, what.str());
    }
    if (op >= CollectiveOp::ShflIdx && op <= CollectiveOp::ShflXor && (width <= 0 || width > 32 || (width & (width - 1))))
        fault(lane, file, line, "shuffle width must be a power of two up to 32");
    auto joins = [&](const Collective* slot) {
        return slot && slot->in_use && slot->op == op && slot->mask == mask && !(slot->arrived >> lane.lane & 1) &&
               slot->arrived != slot->mask;
    };
    Collective* c = joins(w.open) ? w.open : nullptr;  // usually the one the previous lane joined
    for (std::size_t i = 0; !c && i < w.pending.size(); ++i)
        if (joins(&w.pending[i])) c = &w.pending[i];
    if (!c) c = w.open = free_slot(w, op, mask);
    if (!c) fault(lane, file, line, "more than " + std::to_string(w.pending.size()) + " different warp collectives in progress at once in one warp");
    c->arrived |= 1u << lane.lane;
    c->width = width;
    std::memcpy(c->in[lane.lane], value, sizeof value);
    c->arg[lane.lane] = arg;
    set_state(lane, LaneState::AtCollective);
    lane.collective = c;
    lane.wait_file = file;
    lane.wait_line = line;
    if (c->arrived == c->mask) {
        complete(b, w, *c);
        if (b.fault) fault(lane, file, line, "");
    }
}
}  // namespace

void collective_arrive(CollectiveOp op, unsigned mask, const void* in, unsigned bytes, int arg, int width,
                       const char* file, unsigned line)
{
    arrive_at_collective(*tls_lane, op, mask, in, bytes, arg, width, file, line);
}

void syncwarp_arrive_lanes(const unsigned* flats, unsigned count, unsigned mask, const char* file, unsigned line)
{
    WarpPass& p = tls_pass;
    for (unsigned i = 0; i < count; ++i) {
        Lane& lane = p.block->lanes[flats[i]];
        p.running = tls_lane = &lane;  // a fault names this lane
        arrive_at_collective(lane, CollectiveOp::SyncWarp, mask, nullptr, 0, 0, 32, file, line);
    }
    end_turns(p, count);
}

}  // namespace wl::emu::detail

// ------------------------------------------------------------ scheduler --

namespace wl::emu {
namespace {

std::uint64_t mix(std::uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

// Lockstep: every runnable lane executes one step (up to its next access or
// synchronisation) per round, in lane order, so a warp instruction's loads
// all happen before its stores, as on pre-Volta hardware.
bool run_warp_lockstep(Block& b, unsigned w)
{
    bool ran = false;
    const unsigned first = w * 32, last = first + b.warps[w].lanes;
    for (unsigned t = first; t < last; ++t) b.lanes[t].spun = false;
    for (;;) {
        if (b.warps[w].runnable == 0) return ran;
        ++b.warps[w].round;
        bool all_spun = true;  // every lane has reached a spin loop's wait: other warps' turn
        for (unsigned t = first; t < last; ++t) {
            Lane& lane = b.lanes[t];
            if (lane.state != LaneState::Runnable) continue;
            resume(lane);
            if (b.fault) return true;
            all_spun &= lane.spun || lane.state != LaneState::Runnable;
        }
        ran = true;
        if (all_spun) return true;
    }
}

// The same pass as one call into a step_warp body, which takes its lanes from pass_lanes().
bool run_pass(Block& b, Lane* lanes, const unsigned* order, unsigned count)
{
    WarpPass& p = tls_pass;
    p = WarpPass{&b, lanes, order, count, nullptr, false};
    try {
        b.body.step_warp(b.body.ctx);
    } catch (const LaneStopped&) {
    }
    if (p.running) leave_turn(p, false);  // a fault unwound from the running lane
    return p.ran;
}

// Independent: each lane runs to its next synchronisation, lanes in a
// shuffled order that changes every pass.
bool run_warp_independent(Block& b, unsigned w)
{
    Warp& warp = b.warps[w];
    Lane* lanes = &b.lanes[w * 32];
    if (warp.runnable == 0) return false;
    unsigned order[32];
    std::uint64_t r = mix(b.opt->seed ^ mix(b.flat * 1315423911ULL + w * 2654435761ULL + ++warp.round));
    if (warp.lanes == 32) {
        // i -> (i * odd + offset) mod 32 is a permutation: a random one of 512, cheaply.
        const unsigned odd = static_cast<unsigned>(r) | 1u, offset = static_cast<unsigned>(r >> 32);
        for (unsigned i = 0; i < 32; ++i) order[i] = (i * odd + offset) & 31u;
    } else {
        for (unsigned i = 0; i < warp.lanes; ++i) order[i] = i;
        for (unsigned i = warp.lanes; i > 1; --i) {  // Fisher-Yates, 32 random bits per draw
            if ((i & 1) == 0) r = mix(r + i);
            const auto draw = static_cast<std::uint32_t>(r >> ((i & 1) * 32));
            std::swap(order[i - 1], order[(std::uint64_t(draw) * i) >> 32]);
        }
    }
    if (b.body.step_warp) return run_pass(b, lanes, order, warp.lanes);
    bool ran = false;
    for (unsigned i = 0; i < warp.lanes; ++i) {
        Lane& lane = lanes[order[i]];
        if (i + 1 < warp.lanes) prefetch_lane(lanes[order[i + 1]]);
        lane.spun = false;
        while (lane.state == LaneState::Runnable && !lane.spun) {
            resume(lane);
            ran = true;
            if (b.fault) return true;
        }
    }
    return ran;
}

// Nobody can run. The lanes in __activemask() then learn which lanes of their
// warp are there with them: those waiting in the same __activemask() (same
// site). The others have exited or wait elsewhere, so they are not converged
// with these, as on the GPU. True when some lane was released.
bool release_active_masks(Block& b)
{
    if (b.at_active_mask == 0) return false;
    bool released = false;
    for (std::size_t w = 0; w < b.warps.size(); ++w) {
        Lane* lanes = &b.lanes[w * 32];
        for (unsigned i = 0; i < b.warps[w].lanes; ++i) {
            if (lanes[i].state != LaneState::AtActiveMask) continue;
            auto same_site = [&](const Lane& l) {
                return l.state == LaneState::AtActiveMask && l.wait_line == lanes[i].wait_line &&
                       std::strcmp(l.wait_file, lanes[i].wait_file) == 0;
            };
            unsigned mask = 0;
            for (unsigned k = i; k < b.warps[w].lanes; ++k)
                if (same_site(lanes[k])) mask |= 1u << k;
            for (unsigned m = mask; m; m &= m - 1) {
                Lane& l = lanes[__builtin_ctz(m)];
                l.bar_value = mask;
                set_state(l, LaneState::Runnable);
                b.at_active_mask -= 1;
            }
            released = true;
        }
    }
    return released;
}

// Nobody can run: release the barrier, or explain why the block is stuck.
// Every lane waits at one __syncthreads(): a new barrier interval begins.
void release_barrier(Block& b)
{
    const unsigned count = b.barrier_votes;
    for (std::size_t w = 0; w < b.warps.size(); ++w) b.warps[w].runnable = b.warps[w].lanes;  // what set_state would count
    for (Lane& l : b.lanes) {
        l.state = LaneState::Runnable;
        l.epoch += 1;
        l.sub = 0;
        switch (l.bar_op) {
        case detail::BarrierOp::Popc: l.bar_value = count; break;
        case detail::BarrierOp::And: l.bar_value = count == b.threads; break;
        case detail::BarrierOp::Or: l.bar_value = count != 0; break;
        case detail::BarrierOp::None: break;
        }
    }
    b.at_barrier = 0;
    b.barrier_votes = 0;
}

// Nobody can run and a lane waits on an mbarrier: no arrival or copy can come.
void mbarrier_deadlock(Block& b)
{
    for (const Lane& l : b.lanes) {
        if (l.state != LaneState::AtMbarrier) continue;
        const MbarrierState s = load_mbarrier(l.wait_bar);
        std::ostringstream what;
        what << "mbarrier deadlock: this thread waits on " << l.wait_bar_name << "[" << l.wait_bar_index
             << "] for a phase that never completes (it still expects " << s.pending << " arrival"
             << (s.pending == 1 ? "" : "s") << " and " << s.tx << " bytes of bulk copies), and no thread that could "
             << "complete it can run: the others have exited or wait at __syncthreads() or on an mbarrier";
        b.fault = Fault{b.kernel, b.idx, l.view.thread_idx, l.warp, l.lane, l.wait_file, l.wait_line, what.str()};
        return;
    }
}

void settle_barrier(Block& b)
{
    if (b.at_mbarrier) {
        mbarrier_deadlock(b);
        return;
    }
    // The common case, known from the arrivals: every lane at the same site.
    if (b.at_barrier == b.threads && !b.barrier_sites_differ) {
        release_barrier(b);
        return;
    }
    const Lane* waiting = nullptr;
    const Lane* exited = nullptr;
    const Lane* stuck = nullptr;
    for (const Lane& l : b.lanes) {
        if (l.state == LaneState::AtBarrier && !waiting) waiting = &l;
        if (l.state == LaneState::Done && !exited) exited = &l;
        if (l.state == LaneState::AtCollective && !stuck) stuck = &l;
    }
    if (!waiting && !stuck) return;
    auto stop = [&](const Lane& at, std::string what) {
        b.fault = Fault{b.kernel, b.idx, at.view.thread_idx, at.warp, at.lane, at.wait_file, at.wait_line, std::move(what)};
    };
    if (stuck) {
        std::ostringstream what;
        const Collective& c = *stuck->collective;
        what << "warp deadlock: " << detail::op_name(c.op) << " waits for lanes 0x" << std::hex << (c.mask & ~c.arrived)
             << std::dec << " of warp " << stuck->warp << ", which have exited or wait elsewhere";
        stop(*stuck, what.str());
        return;
    }
    if (exited) {
        stop(*waiting, "barrier divergence: this thread waits at __syncthreads(), but " +
                           thread_name(b, exited->flat) + " of the block has already exited");
        return;
    }
    for (const Lane& l : b.lanes) {
        const bool same_site = l.wait_line == waiting->wait_line &&
                               (l.wait_file == waiting->wait_file || std::strcmp(l.wait_file, waiting->wait_file) == 0);
        if (!same_site) {
            stop(*waiting, "barrier divergence: this thread waits at __syncthreads() here, but " +
                               thread_name(b, l.flat) + " waits at another __syncthreads() at " +
                               site(l.wait_file, l.wait_line));
            return;
        }
    }
    release_barrier(b);
}

void run_block(Block& b, WorkerMemory& mem)
{
    b.arena = mem.arena.get();
    b.shadow = mem.shadow.get();
    if (mem.lanes.size() < b.threads) mem.lanes.resize(b.threads);
    b.lanes = Block::LaneSpan{mem.lanes.data(), b.threads};
    const unsigned warps = (b.threads + 31) / 32;
    if (mem.warps.size() < warps) mem.warps.resize(warps);
    b.warps = Block::WarpSpan{mem.warps.data(), warps};
    for (unsigned w = 0; w < warps; ++w) {
        Warp& warp = b.warps[w];
        warp.lanes = std::min(32u, b.threads - w * 32);
        warp.runnable = warp.lanes;
        warp.round = 0;
        warp.open = nullptr;
        std::fill(std::begin(warp.full_vc), std::end(warp.full_vc), 0u);
        for (Collective& c : warp.pending) c.in_use = false;
    }
    for (unsigned t = 0; t < b.threads; ++t) {
        Lane& l = b.lanes[t];
        l.state = LaneState::Runnable;
        l.seq = l.epoch = l.sub = l.declared = 0;
        l.has_vc = false;
        l.collective = nullptr;
        l.started = false;
        l.spun = false;
        l.bar_op = detail::BarrierOp::None;
        l.bar_value = 0;
        l.view = detail::ThreadView{uint3{t % b.dim.x, (t / b.dim.x) % b.dim.y, t / (b.dim.x * b.dim.y)}, b.idx, b.dim, b.grid};
        l.block = &b;
        l.flat = t;
        l.warp = t / 32;
        l.lane = t % 32;
        l.clock = 1;
        // Stagger the stack tops: 64 KiB-aligned tops would all fall into the
        // same cache sets, and every switch touches one.
        const std::size_t stagger = (t % 61) * 64;
        if (!b.body.step) l.fiber = ctx::make_fcontext(static_cast<char*>(mem.stack_top(t)) - stagger, kStackBytes - stagger, lane_entry);
    }
    const bool lockstep = b.opt->schedule == Schedule::Lockstep;
    for (;;) {
        bool ran = false;
        for (unsigned w = 0; w < b.warps.size() && !b.fault; ++w)
            ran |= lockstep ? run_warp_lockstep(b, w) : run_warp_independent(b, w);
        if (b.fault) return;
        if (ran) continue;
        if (std::all_of(b.lanes.begin(), b.lanes.end(), [](const Lane& l) { return l.state == LaneState::Done; })) return;
        if (release_active_masks(b)) continue;
        settle_barrier(b);
        if (b.fault) return;
    }
}

}  // namespace

namespace detail {

// One warning per site and text over the launch's blocks: the first block's, counting them all.
void add_warning(std::vector<Warning>& all, Warning w)
{
    for (Warning& k : all)
        if (k.at.line == w.at.line && k.at.file == w.at.file && k.at.what == w.at.what) {
            k.count += w.count;
            return;
        }
    all.push_back(std::move(w));
}

void run_grid(const char* kernel, dim3 grid, dim3 block, const LaunchOptions& opt, KernelBody body,
              std::vector<trace::LaneRecord>& records, std::uint64_t& switches, RunNotes notes)
{
    const std::uint64_t threads = std::uint64_t(block.x) * block.y * block.z;
    const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
    if (threads == 0 || threads > 1024)
        throw LaunchError("invalid block size " + std::to_string(threads) + ": a block holds 1 to 1024 threads");
    if (block.z > 64) throw LaunchError("invalid block: blockDim.z is at most 64");
    if (blocks == 0) throw LaunchError("invalid grid: it has no blocks");
    if (grid.y > 65535 || grid.z > 65535) throw LaunchError("invalid grid: gridDim.y and gridDim.z are at most 65535");

    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(opt.workers ? opt.workers : cores, blocks));
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex out_mutex;
    std::optional<Fault> first_fault;
    std::uint64_t first_fault_block = ~0ULL;
    std::exception_ptr error;
    std::atomic<std::uint64_t> done{0};
    std::atomic<std::int64_t> last_report{0};
    const auto start = std::chrono::steady_clock::now();
    // Progress, from whichever host thread finishes a block once half a second has passed since the last report.
    auto report = [&] {
        if (!opt.progress) return;
        const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
        std::int64_t last = last_report.load();
        if (now - last < 500 || !last_report.compare_exchange_strong(last, now)) return;
        std::lock_guard lock(out_mutex);
        opt.progress(done.load(), blocks);
    };

    auto work = [&] {
        try {
            const std::uint64_t switches_before = tls_switches;
            PooledMemory pooled(static_cast<unsigned>(threads));
            WorkerMemory& mem = pooled.get();
            std::vector<LaneRecord> local;
            for (std::uint64_t i; !stop && (i = next++) < blocks;) {
                Block b;
                b.kernel = kernel;
                b.opt = &opt;
                b.body = body;
                b.idx = uint3{static_cast<unsigned>(i % grid.x), static_cast<unsigned>((i / grid.x) % grid.y),
                              static_cast<unsigned>(i / (std::uint64_t(grid.x) * grid.y))};
                b.dim = block;
                b.grid = grid;
                b.flat = static_cast<unsigned>(i);
                b.threads = static_cast<unsigned>(threads);
                b.watched = opt.record && std::find(opt.watched_blocks.begin(), opt.watched_blocks.end(), i) !=
                                              opt.watched_blocks.end();
                b.records = &local;
                b.max_records = opt.max_record_bytes / sizeof(LaneRecord);
                run_block(b, mem);
                ++done;
                report();
                if (b.records_cut || !b.warnings.empty()) {
                    std::lock_guard lock(out_mutex);
                    *notes.records_cut |= b.records_cut;
                    for (Warning& w : b.warnings) add_warning(*notes.warnings, std::move(w));
                }
                if (b.fault) {
                    stop = true;
                    std::lock_guard lock(out_mutex);
                    if (i < first_fault_block) {
                        first_fault = b.fault;
                        first_fault_block = i;
                    }
                }
            }
            std::lock_guard lock(out_mutex);
            if (records.empty()) records = std::move(local);  // no second copy of up to the cap's bytes
            else records.insert(records.end(), local.begin(), local.end());
            switches += tls_switches - switches_before;
        } catch (...) {
            stop = true;
            std::lock_guard lock(out_mutex);
            if (!error) error = std::current_exception();
        }
    };
    if (workers == 1) {
        work();
    } else {
        std::vector<std::thread> pool;
        for (unsigned i = 0; i < workers; ++i) pool.emplace_back(work);
        for (auto& t : pool) t.join();
    }
    if (error) std::rethrow_exception(error);
    if (first_fault) throw KernelFault(*first_fault);
}

}  // namespace detail
}  // namespace wl::emu
