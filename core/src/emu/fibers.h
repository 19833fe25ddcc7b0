// Fibers: how a lane runs and how the scheduler gets it back. The memory a
// host thread keeps for its blocks (guarded fiber stacks, the shared arena
// and its shadow), pooled between launches, and resume(), which runs a lane
// until it waits or ends: on its fiber, or as one call of an explicit-state body.
#pragma once
#include <memory>
#include <vector>

#include "block.h"

namespace wl::emu::detail {

// Per host thread: fiber stacks with a guard page each, the shared arena and its shadow.
// Without guard pages the stacks are one mapping: a cooperative grid keeps a
// WorkerMemory per resident block, and two mappings a stack would pass the
// kernel's limit on a process's mappings (vm.max_map_count, 65530) at a few hundred blocks.
class WorkerMemory {
public:
    explicit WorkerMemory(unsigned stacks, bool guard_pages = true);
    ~WorkerMemory();
    void* stack_top(unsigned i) const { return base_ + (i + 1) * slot_; }
    unsigned stacks() const { return stacks_; }

    std::unique_ptr<unsigned char[]> arena;
    std::unique_ptr<WordShadow[]> shadow;
    std::vector<Lane> lanes;  // reused from block to block
    std::vector<std::uint32_t> clocks;  // the lanes' vector clocks (Lane::vc), kMaxWarpWidth a lane
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
    explicit PooledMemory(unsigned stacks);
    ~PooledMemory();
    PooledMemory(const PooledMemory&) = delete;
    PooledMemory& operator=(const PooledMemory&) = delete;
    WorkerMemory& get() { return *mem_; }

private:
    std::unique_ptr<WorkerMemory> mem_;
};

// A fiber lane's fiber, on stack t of mem, ready to start the body.
void make_fiber(Lane& lane, WorkerMemory& mem, unsigned t);

// Inlined into the scheduler's loops: it runs at every resume.
[[gnu::always_inline]] inline void resume(Lane& lane)
{
    tls_lane = &lane;
    if (const KernelBody& body = lane.block->body; body.run_lane) {
        try {
            const bool first = !lane.started;
            lane.started = true;
            if (body.run_lane(body.ctx, lane.flat, first)) set_state(lane, LaneState::Done);
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


}  // namespace wl::emu::detail
