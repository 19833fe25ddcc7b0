// The runtime's state, shared by its files: a block's lanes and warps, the
// shadow of shared memory that the checks read, and the small inline helpers
// every entry uses (the running lane, state changes, yields, records, faults,
// the race rule's "ordered"). The running lane and the current warp pass are
// host-thread locals, reached only through this header.
#pragma once
#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime.h"
#include "warplab/trace/mix.h"

namespace wl::emu::detail {

namespace ctx = boost::context::detail;
using trace::Kind;
using trace::LaneRecord;
using trace::Space;

// AtActiveMask: in __activemask(), until no lane of its warp can run (see release_active_masks).
// AtMbarrier: in mbarrier.try_wait, until the mbarrier changes (see wake_mbarrier_waiters).
enum class LaneState { Runnable, AtCollective, AtBarrier, AtActiveMask, AtMbarrier, Done, Faulted };

struct Collective {
    CollectiveOp op;
    std::uint64_t mask = 0;
    std::uint64_t arrived = 0;
    unsigned waiting = 0;  // participants that have not yet taken their result
    int width = 32;
    bool in_use = false;
    std::uint64_t in[kMaxWarpWidth][5];  // 16 bytes a lane; 40 for mma.sync's fragments
    int arg[kMaxWarpWidth];
    std::uint64_t out[kMaxWarpWidth][2];
};

struct Block;
struct GlobalShadow;

// What the scheduler and the barrier touch at every resume comes first, in one
// cache line (a barrier's arrival and release write each lane's state, site
// and epoch: one line a lane, not two), the vector clock (read only by race
// checks) last: fewer cache lines per resume.
struct alignas(64) Lane {
    LaneState state = LaneState::Runnable;
    bool started = false;  // explicit-state lanes: has the body run for this lane yet
    bool spun = false;     // gave up its turn in a spin loop (spin_yield): runnable, but not again this round
    BarrierOp bar_op = BarrierOp::None;
    Block* block = nullptr;
    unsigned flat = 0, warp = 0, lane = 0;
    std::uint32_t seq = 0, epoch = 0, sub = 0, declared = 0;
    unsigned bar_value = 0;  // bar.red: this lane's input, then the block's result
    const char* wait_file = "";
    unsigned wait_line = 0;
    // Independent schedule: this lane's own clock, and what it learnt of the
    // other lanes' clocks through partial-mask collectives (full-warp ones are
    // kept once, in Warp::full_vc). vc holds something only once has_vc is
    // set (at the lane's first partial-mask collective in the block): until
    // then it reads as zeros, so that a block's start need not clear 256 bytes a lane.
    std::uint32_t clock = 1;
    ThreadView view;
    Collective* collective = nullptr;
    ctx::fcontext_t fiber = nullptr;  // where to resume this lane
    ctx::fcontext_t sched = nullptr;  // where this lane returns to the scheduler
    bool has_vc = false;
    // AtActiveMask, once released: the lanes of its warp at the same __activemask().
    std::uint64_t active_mask = 0;
    // AtMbarrier: the mbarrier waited on, and its name for a deadlock's message.
    const void* wait_bar = nullptr;
    const char* wait_bar_name = "";
    long long wait_bar_index = 0;
    // The clock itself lives in the host thread's memory (one row of
    // kMaxWarpWidth a lane), so that a lane stays small at either width.
    std::uint32_t* vc = nullptr;
    std::uint32_t learnt(unsigned k) const { return has_vc ? vc[k] : 0; }
    // What it learnt of every thread's clock through the mbarrier phases it
    // waited for (mbarriers.cpp): a row of clock_slots, null until its first wait.
    std::uint32_t* synced = nullptr;
};
static_assert(offsetof(Lane, clock) + sizeof(Lane::clock) <= 64, "a turn's fields fill one cache line");

struct Warp {
    // Collectives in progress. A warp has at most one per distinct (op, mask)
    // that its lanes are waiting in, so a few slots suffice; more are added,
    // up to kMaxCollectives (a deque: lanes keep pointers to the slots in use).
    std::deque<Collective> pending = std::deque<Collective>(8);
    Collective* open = nullptr;  // the collective a lane most recently joined
    std::uint32_t round = 0;  // Lockstep: one round = one warp instruction
    unsigned lanes = 0;
    unsigned runnable = 0;    // lanes in LaneState::Runnable (kept by set_state)
    bool all_started = false;  // every lane has had its first turn (a whole warp's pass took them all)
    // Lanes (bit k: the warp's lane k) that a pass's batch brought to the block's barrier at its
    // site (Block::barrier_file, barrier_line), counted but not written into their Lane, whose
    // state still reads Runnable: a batch's arrival then touches no lane. They read as AtBarrier
    // there, as barriers.cpp writes them out before any scan of the block's lanes, and the barrier's
    // release makes them Runnable as it does every lane.
    std::uint64_t at_barrier_unwritten = 0;
    std::uint32_t full_vc[kMaxWarpWidth];  // each lane's clock at the last full-warp collective
};

// An access as the race rules read it: a shared word's stamp spelt out (shared_access), or global memory's.
struct AccessStamp {
    std::uint32_t thread, epoch, clock;
    std::uint32_t block;  // the block's flat index (global memory's stamps come from every block)
    const char* file;
    unsigned line;
    bool valid, atomic;
    std::uint8_t bytes;  // which of the word's 4 bytes the access touched (bit i = byte i)
    bool beside_atomics;  // a plain store already found racing with atomics (checks.cpp warns of it)
};

// The last write or read of a shared word, as its shadow keeps it: the lane's clock, and the rest
// packed in one word: the thread (a block's 1024 threads and its copy engine), the bytes of the word
// touched (none: no access), two flags, the site as an index in the block's table (Block::shared_sites).
// Its block is the running one, its barrier interval the word's (WordShadow::epoch). Global
// memory's stamps pack the same fields alike (global_races.cpp).
struct SharedStamp {
    std::uint32_t clock;
    std::uint32_t packed;
};
namespace packed_stamp {
constexpr unsigned kBytesShift = 11, kAtomicBit = 15, kBesideAtomicsBit = 16, kSiteShift = 17;
constexpr std::uint32_t kThreadMask = (1u << kBytesShift) - 1, kMaxSite = (1u << (32 - kSiteShift)) - 1;
constexpr std::uint32_t pack(unsigned thread, std::uint8_t bytes, bool atomic, bool beside_atomics, std::uint32_t site)
{
    return thread | std::uint32_t{bytes} << kBytesShift | std::uint32_t{atomic} << kAtomicBit |
           std::uint32_t{beside_atomics} << kBesideAtomicsBit | site << kSiteShift;
}
constexpr unsigned thread_of(std::uint32_t p) { return p & kThreadMask; }
constexpr std::uint8_t bytes_of(std::uint32_t p) { return (p >> kBytesShift) & 0xF; }
constexpr bool atomic_of(std::uint32_t p) { return (p >> kAtomicBit) & 1; }
constexpr bool beside_atomics_of(std::uint32_t p) { return (p >> kBesideAtomicsBit) & 1; }
constexpr std::uint32_t site_of(std::uint32_t p) { return p >> kSiteShift; }
}  // namespace packed_stamp

// One 4-byte shared word's shadow: its last write and last read in the barrier interval `epoch`.
// A write is checked against the last read and against the last read from another warp than that
// one, so that one warp's ordered reads do not hide another warp's unordered read. Every lane of a
// block is in one interval (release_barrier moves them all), and stamps of an earlier one are
// ordered before every access, so a word first touched in a new interval drops them (shadow_word).
// Trivial (no member initialisers): the shadow of the whole shared arena is allocated uninitialised
// and reset, array by array, as arrays are declared.
struct WordShadow {
    std::uint32_t epoch;
    std::uint8_t initialised;  // bytes of the word written so far in this block (bit i = byte i)
    SharedStamp write, read, read_other_warp;
};
static_assert(sizeof(WordShadow) == 32);

struct SharedDecl {
    std::size_t offset;
    std::size_t bytes;
};

constexpr std::size_t kSharedCapacity = 228 * 1024;  // H100's per-block maximum
constexpr std::size_t kStackBytes = 64 * 1024;

struct Block {
    const char* kernel = "";
    const LaunchOptions* opt = nullptr;
    KernelBody body{};
    uint3 idx;
    dim3 dim, grid;
    unsigned flat = 0, threads = 0;
    unsigned warp_width = 32, warp_shift = 5;  // lanes per warp, and its log2
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
    // The source file its records named last, and its hash (LaneRecord::file_hash): a block records from a file or two.
    const char* recorded_file = nullptr;
    std::uint32_t recorded_file_hash = trace::file_hash("");
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
    // Mbarrier phases as synchronisation (mbarriers.cpp): per mbarrier, the
    // clocks its current phase has gathered from its arrivals and those its
    // completed phases released (by parity); the lanes' Lane::synced rows.
    struct MbarrierClocks {
        const void* bar;
        std::vector<std::uint32_t> arriving, released[2];
    };
    std::vector<MbarrierClocks> mbarrier_clocks;
    std::vector<std::uint32_t> synced_rows;
    std::uint32_t engine_clock = 0;  // the copy engine's clock: one tick a landed bulk copy
    // Global memory's race check (global_races.cpp): the launch's shadow, and
    // this block's releases and acquires as the launch's synchronisation clock counts them.
    GlobalShadow* global = nullptr;
    struct SiteSlot {
        const char* file = nullptr;
        unsigned line = 0;
        std::uint32_t index = ~0u;
    };
    SiteSlot site_cache[8];  // the access sites this block stamped last, and their index in the shadow's table
    unsigned next_site = 0;
    // The sites of the block's shared stamps (SharedStamp's index), and the last ones by line (shared_site).
    std::vector<std::pair<const char*, unsigned>> shared_sites;
    SiteSlot shared_site_cache[8];
    std::uint32_t* held_words[2] = {};  // an atomic's words' locks, held from its check to its operation's end
    // The launch's segment that this block's accesses are stamped with now (0: none yet), and the epoch
    // and releases it was made at: a barrier or a release starts another.
    std::uint32_t segment = 0, segment_epoch = 0, segment_releases = 0;
    std::uint64_t acquired = 0;      // the clock at this block's last acquire (0: none yet)
    std::uint32_t releases = 0;      // releases logged so far
    bool accessed_since_release = false;
    // The instruction mix (tally.cpp), in a watched block whose body classes its
    // instructions: each lane's counts in its current step (a row of
    // body.instructions a lane), and each warp's at each step (epoch, sub) it
    // has ended, the most any of its lanes reached each instruction.
    std::vector<std::uint32_t> tally;
    std::map<std::array<std::uint32_t, 3>, std::vector<std::uint32_t>> warp_tally;
    // ... and, once every lane has left those steps (a barrier), by class.
    std::map<std::array<std::uint32_t, 3>, std::array<std::uint64_t, trace::kInstructionClasses>> class_tally;
};

// The copy engine's thread number in access stamps and clocks: one past the
// block's threads. Clocks over the block (Lane::synced) have a slot for it.
inline unsigned copy_engine(const Block& b) { return b.threads; }
inline unsigned clock_slots(const Block& b) { return b.threads + 1; }

// The lane this host thread runs (the scheduler sets it at every resume, a
// warp pass at every enter_lane), and fiber switches counted so far: each
// resume is two (there and back). WL_RUNTIME_TLS: runtime.h.
extern WL_RUNTIME_TLS Lane* tls_lane;
extern WL_RUNTIME_TLS std::uint64_t tls_switches;

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

// Explicit-state lanes (KernelBody::run_lane) leave the body by returning; a
// fault unwinds to the scheduler with this.
struct LaneStopped {};

inline bool explicit_state(const Lane& lane) { return lane.block->body.run_lane != nullptr; }

// Back to the scheduler; returns when the scheduler resumes this lane. An
// explicit-state lane returns from its run_lane call instead (its caller sees the state).
inline void yield_to_scheduler(Lane& lane)
{
    if (explicit_state(lane)) return;
    ctx::transfer_t t = ctx::jump_fcontext(lane.sched, nullptr);
    lane.sched = t.fctx;
}

// A run_pass body's pass over one warp: the lanes in the scheduler's order.
// Trivial (no initialisers), so that it can be a __thread; run_pass sets it whole.
struct WarpPass {
    Block* block;
    Lane* lanes;  // the warp's
    const unsigned* order;  // or null: a whole warp, lane (i * odd + offset) mod count i-th (count a power of two)
    unsigned odd, offset;
    unsigned count;
    Lane* running;  // the entered lane
    bool ran;
};
extern WL_RUNTIME_TLS WarpPass tls_pass;

// What resume() does after a lane's turn, for the lane a pass has entered.
inline void leave_turn(WarpPass& p, bool ended)
{
    if (ended) set_state(*p.running, LaneState::Done);
    p.running = nullptr;
    tls_lane = nullptr;
    tls_switches += 2;
}

// A batch of the pass's lanes has arrived somewhere: their turns end.
inline void end_turns(WarpPass& p, unsigned count)
{
    p.running = nullptr;
    tls_lane = nullptr;
    tls_switches += 2 * count;
}

// Stops the launch: the lane never runs again, the scheduler sees the fault.
[[noreturn]] void fault(Lane& lane, const char* file, unsigned line, std::string what);
// For messages: "thread (x,y,z)", "file:line", and where another access was
// said against this one's place: " on the same line", or " at file:line".
std::string thread_name(const Block& b, unsigned flat);
std::string site(const char* file, unsigned line);
std::string other_site(const char* here_file, unsigned here_line, const char* file, unsigned line);

// The instruction mix (tally.cpp): a watched block's counts start with it,
// each lane's step ends before its epoch or sub moves on (close_tally), and
// the block's end turns the counts into Kind::Mix records.
void start_tally(Block& b);
void close_tally_row(Lane& lane);
inline void close_tally(Lane& lane)
{
    if (!lane.block->tally.empty()) close_tally_row(lane);
}
// After a barrier: every step so far has ended for every lane, so the
// instruction counts of each become class counts (memory stays one interval's).
void settle_tally_rows(Block& b);
inline void settle_tally(Block& b)
{
    if (!b.warp_tally.empty()) settle_tally_rows(b);
}
void finish_tally(Block& b);
// A record made for the block rather than one lane (a Mix record), kept within the block's cap.
void append_record(Block& b, const LaneRecord& r);

void record_watched(Lane& lane, Kind kind, Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                    const void* value, unsigned value_bytes, const char* file, unsigned line);
// Only the watched blocks record; the others pay one branch.
inline void record(Lane& lane, Kind kind, Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                   const void* value, unsigned value_bytes, const char* file, unsigned line)
{
    if (lane.block->watched) record_watched(lane, kind, space, size, array, offset, value, value_bytes, file, line);
}

// Two accesses by different threads in one barrier interval are ordered only
// by a warp synchronisation between them: a lockstep round (Lockstep) or a
// collective both lanes joined (Independent, vector clocks); or by an mbarrier
// phase the earlier thread arrived at and the later one waited for.
inline std::uint32_t lane_clock(const Lane& lane)
{
    const Block& b = *lane.block;
    return b.opt->schedule == Schedule::Lockstep ? b.warps[lane.warp].round : lane.clock;
}

// Both accesses in one block and one barrier interval (the caller knows): the earlier by `thread` at `clock`.
inline bool ordered_in_interval(const Lane& now, unsigned thread, std::uint32_t clock)
{
    if (thread == now.flat) return true;
    if (now.synced && now.synced[thread] >= clock) return true;  // an mbarrier phase between
    if (thread >= now.block->threads) return false;               // the copy engine, not waited for
    if ((thread >> now.block->warp_shift) != now.warp) return false;
    if (now.block->opt->schedule == Schedule::Lockstep) return clock != now.block->warps[now.warp].round;
    const unsigned k = thread & (now.block->warp_width - 1);
    return std::max(now.learnt(k), now.block->warps[now.warp].full_vc[k]) >= clock;
}

// Both accesses in one block (the caller knows).
inline bool ordered(const Lane& now, const AccessStamp& before)
{
    return !before.valid || before.epoch != now.epoch || ordered_in_interval(now, before.thread, before.clock);
}

// A stamp of the running block's shadow (its word's).
inline bool ordered(const Lane& now, const WordShadow& word, const SharedStamp& before)
{
    return packed_stamp::bytes_of(before.packed) == 0 || word.epoch != now.epoch ||
           ordered_in_interval(now, packed_stamp::thread_of(before.packed), before.clock);
}

// Word w's shadow for an access in barrier interval `epoch`: the stamps of an earlier interval dropped.
inline WordShadow& shadow_word(Block& b, std::size_t w, std::uint32_t epoch)
{
    WordShadow& s = b.shadow[w];
    if (s.epoch != epoch) {
        s.epoch = epoch;
        s.write.packed = s.read.packed = s.read_other_warp.packed = 0;
    }
    return s;
}

// The index of a shared access's site in the block's table (a few sites a kernel: the last ones are
// kept by line). A block with more sites than a stamp holds names its last one for those past it.
std::uint32_t new_shared_site(Block& b, const char* file, unsigned line);
inline std::uint32_t shared_site(Block& b, const char* file, unsigned line)
{
    const Block::SiteSlot& k = b.shared_site_cache[line % std::size(b.shared_site_cache)];
    if (k.file == file && k.line == line && k.index != ~0u) [[likely]]
        return k.index;
    return new_shared_site(b, file, line);
}

// A shared word's stamp as the race rules read it.
inline AccessStamp shared_access(const Block& b, const WordShadow& word, const SharedStamp& s)
{
    using namespace packed_stamp;
    const std::pair<const char*, unsigned>& at = b.shared_sites[site_of(s.packed)];
    return AccessStamp{thread_of(s.packed), word.epoch, s.clock, b.flat, at.first, at.second, bytes_of(s.packed) != 0,
                       atomic_of(s.packed), bytes_of(s.packed), beside_atomics_of(s.packed)};
}

// A launch's shadow of global memory (global_races.cpp), made at its start and
// dropped at its end; concurrent: its blocks run on several host threads.
std::shared_ptr<GlobalShadow> make_global_shadow(bool concurrent);

// Called by the scheduler when no lane can run (barriers.cpp, mbarriers.cpp):
// lanes in __activemask() learn their mask (true when some were released); the
// block's barrier is released or its divergence reported; a wait on an
// mbarrier that nothing can complete is reported.
bool release_active_masks(Block& b);
// __syncwarp()s whose missing lanes have all exited complete for the lanes that arrived: the Guide asks
// a corresponding __syncwarp() only of the non-exited threads named in the mask. True when one did.
bool release_syncwarps_past_exited(Block& b);
void settle_barrier(Block& b);
void mbarrier_deadlock(Block& b);
// A warp collective of the lanes in mask (lanes base + k) passes on what its
// lanes learnt through mbarrier phases, and orders their accesses so far for
// those who learn it from them: a lane that waited, then __syncwarp() (mbarriers.cpp).
void share_synced(Block& b, unsigned base, std::uint64_t mask);
// The collective's name in messages ("__shfl_sync").
const char* op_name(CollectiveOp op);

}  // namespace wl::emu::detail
