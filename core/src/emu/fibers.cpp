// Fibers and warp passes: the host thread's stacks and arena, a fiber lane's
// entry, the running lane (thread locals), and the entries a run_pass body
// uses to take its lanes and make one of them the running one.
#include "fibers.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

namespace wl::emu::detail {

WL_RUNTIME_TLS Lane* tls_lane = nullptr;
WL_RUNTIME_TLS std::uint64_t tls_switches = 0;
WL_RUNTIME_TLS std::uint64_t tls_lane_instructions = 0;
WL_RUNTIME_TLS WarpPass tls_pass;

// WebAssembly cannot switch stacks the way Boost.Context does: the browser build
// maps no fiber stacks and refuses, in make_fiber, the kernels that need them.
#if defined(__EMSCRIPTEN__)
constexpr bool kHaveFibers = false;
#else
constexpr bool kHaveFibers = true;
#endif

WorkerMemory::WorkerMemory(unsigned stacks, bool guard_pages)
    : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))), slot_(kStackBytes + page_), stacks_(stacks)
{
    arena.reset(new unsigned char[kSharedCapacity]);  // uninitialised (libc++ 14 has no make_unique_for_overwrite)
    shadow.reset(new WordShadow[kSharedCapacity / 4]);
    base_ = nullptr;
    if (!kHaveFibers) return;
    base_ = static_cast<unsigned char*>(
        mmap(nullptr, slot_ * stacks, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (base_ == MAP_FAILED) throw LaunchError("emulator: cannot map fiber stacks");
    if (!guard_pages) return;
    for (unsigned i = 0; i < stacks; ++i) mprotect(base_ + i * slot_, page_, PROT_NONE);  // guard below each stack
}

WorkerMemory::~WorkerMemory()
{
    if (base_) munmap(base_, slot_ * stacks_);
}

namespace {
std::mutex g_pool_mutex;
std::vector<std::unique_ptr<WorkerMemory>> g_pool;  // memory no launch holds now

[[noreturn]] void lane_entry(ctx::transfer_t t)
{
    Lane* lane = static_cast<Lane*>(t.data);
    lane->sched = t.fctx;
    lane->block->body.call(lane->block->body.ctx);
    set_state(*lane, LaneState::Done);
    ctx::jump_fcontext(lane->sched, nullptr);
    std::abort();  // a finished lane is never resumed
}
}  // namespace

PooledMemory::PooledMemory(unsigned stacks)
{
    std::lock_guard lock(g_pool_mutex);
    for (auto it = g_pool.begin(); it != g_pool.end(); ++it)
        if ((*it)->stacks() >= stacks) {
            mem_ = std::move(*it);
            g_pool.erase(it);
            return;
        }
    mem_ = std::make_unique<WorkerMemory>(std::max(stacks, 1024u));
}

PooledMemory::~PooledMemory()
{
    std::lock_guard lock(g_pool_mutex);
    g_pool.push_back(std::move(mem_));
}

void make_fiber(Lane& lane, WorkerMemory& mem, unsigned t)
{
    if (!kHaveFibers)
        throw LaunchError("this kernel calls device functions, which run on fibers; the browser build has none (use the desktop build)");
    // Stagger the stack tops: 64 KiB-aligned tops would all fall into the
    // same cache sets, and every switch touches one.
    const std::size_t stagger = (t % 61) * 64;
    lane.fiber = ctx::make_fcontext(static_cast<char*>(mem.stack_top(t)) - stagger, kStackBytes - stagger, lane_entry);
}

// ------------------------------------------------------- the running lane --

const ThreadView& thread_view() { return tls_lane->view; }

LaneInfo current_lane()
{
    const Lane& lane = *tls_lane;
    return LaneInfo{lane.flat, lane.warp, lane.lane, lane.block->watched,
                    lane.block->opt->schedule == Schedule::Lockstep};
}

void wait_turn() { yield_to_scheduler(*tls_lane); }

// ------------------------------------------------------------ warp passes --

namespace {
// The runnable lanes of a warp's `count`, i-th the lane at(i), into `lanes`;
// all_runnable: known, so not asked lane by lane; `waiting`: lanes at the barrier that still read Runnable.
template <class At>
unsigned take_lanes(Lane* warp, unsigned count, At at, bool all_runnable, std::uint64_t waiting, LaneTurn* lanes)
{
    unsigned n = 0;
    for (unsigned i = 0; i < count; ++i) {
        Lane& lane = warp[at(i)];
        if (!all_runnable && (lane.state != LaneState::Runnable || (waiting >> at(i) & 1))) continue;
        lanes[n++] = LaneTurn{lane.flat, !lane.started};
        lane.started = true;
    }
    return n;
}
}  // namespace

unsigned pass_lanes(LaneTurn (&lanes)[kMaxWarpWidth])
{
    const WarpPass p = tls_pass;  // a copy: the stores to lanes[] could alias tls_pass
    const Warp& w = p.block->warps[p.lanes[0].warp];
    const bool all_runnable = w.runnable == p.count;
    const std::uint64_t waiting = w.at_barrier_unwritten;
    const unsigned last = p.count - 1;
    const unsigned n = p.order ? take_lanes(p.lanes, p.count, [&](unsigned i) { return p.order[i]; }, all_runnable,
                                            waiting, lanes)
                               : take_lanes(p.lanes, p.count, [&](unsigned i) { return (i * p.odd + p.offset) & last; },
                                            all_runnable, waiting, lanes);
    tls_pass.ran = n != 0;
    if (n == p.count && !p.order) p.block->warps[p.lanes[0].warp].all_started = true;
    return n;
}

bool pass_in_order(PassOrder& order)
{
    WarpPass& p = tls_pass;
    const Warp& w = p.block->warps[p.lanes[0].warp];
    if (p.order || !w.all_started || w.runnable != p.count) return false;
    order = PassOrder{p.lanes[0].flat, p.odd, p.offset, p.count};
    p.ran = true;
    return true;
}

void enter_lane(unsigned flat)
{
    WarpPass& p = tls_pass;
    Lane& lane = p.block->lanes[flat];
    p.running = &lane;
    tls_lane = &lane;
}

void leave_lane(bool ended) { leave_turn(tls_pass, ended); }

void end_lanes(const unsigned* flats, unsigned count)
{
    WarpPass& p = tls_pass;
    for (unsigned i = 0; i < count; ++i) set_state(p.block->lanes[flats[i]], LaneState::Done);
    end_turns(p, count);
}

}  // namespace wl::emu::detail
