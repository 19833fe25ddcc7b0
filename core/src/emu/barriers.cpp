// Barriers: __syncthreads() (bar.sync, bar.red) and __activemask(), the waits
// the scheduler settles when no lane can run. One way in for every form of
// arrival (a fiber lane that blocks, an explicit-state lane that returns, a
// warp pass's converged lanes at once): arrive_at_barrier.
#include <bit>
#include <sstream>

#include "block.h"

namespace wl::emu::detail {

namespace {
// Lanes of one warp of a block (flat indices) arrive at the barrier at
// file:line, as running lanes: each records its arrival (a watched block's)
// and waits; the block counts them, so that settle_barrier knows without a
// scan whether all wait at one site.
inline void arrive_at_barrier(Block& b, const unsigned* flats, unsigned count, BarrierOp op, unsigned value,
                              const char* file, unsigned line)
{
    if (b.watched)
        for (unsigned i = 0; i < count; ++i)
            record_watched(b.lanes[flats[i]], trace::Kind::SyncThreads, trace::Space::None, 0, 0, 0, nullptr, 0, file, line);
    for (unsigned i = 0; i < count; ++i) {
        Lane& lane = b.lanes[flats[i]];
        lane.wait_file = file;
        lane.wait_line = line;
        lane.bar_op = op;
        lane.bar_value = value;
        lane.state = LaneState::AtBarrier;  // from Runnable: what set_state would count, below
    }
    b.warps[b.lanes[flats[0]].warp].runnable -= count;
    b.barrier_votes += value != 0 ? count : 0;
    if (b.at_barrier == 0) {
        b.barrier_file = file;
        b.barrier_line = line;
        b.barrier_sites_differ = false;
    } else {
        b.barrier_sites_differ |= b.barrier_file != file || b.barrier_line != line;
    }
    b.at_barrier += count;
}
}  // namespace

void barrier_arrive(BarrierOp op, unsigned value, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    arrive_at_barrier(*lane.block, &lane.flat, 1, op, value, file, line);
}

unsigned barrier_result() { return tls_lane->bar_value; }

unsigned barrier(BarrierOp op, unsigned value, const char* file, unsigned line)
{
    barrier_arrive(op, value, file, line);
    yield_to_scheduler(*tls_lane);
    return barrier_result();
}

void barrier_arrive_lanes(const unsigned* flats, unsigned count, const char* file, unsigned line)
{
    if (count == 0) return;
    WarpPass& p = tls_pass;
    arrive_at_barrier(*p.block, flats, count, BarrierOp::None, 0, file, line);
    end_turns(p, count);
}

void active_mask_arrive(const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    set_state(lane, LaneState::AtActiveMask);
    lane.block->at_active_mask += 1;
    lane.wait_file = file ? file : "";
    lane.wait_line = line;
}

std::uint64_t active_mask_result() { return tls_lane->active_mask; }

// Nobody can run. The lanes in __activemask() then learn which lanes of their
// warp are there with them: those waiting in the same __activemask() (same
// site). The others have exited or wait elsewhere, so they are not converged
// with these, as on the GPU. True when some lane was released.
bool release_active_masks(Block& b)
{
    if (b.at_active_mask == 0) return false;
    bool released = false;
    for (std::size_t w = 0; w < b.warps.size(); ++w) {
        Lane* lanes = &b.lanes[w * b.warp_width];
        for (unsigned i = 0; i < b.warps[w].lanes; ++i) {
            if (lanes[i].state != LaneState::AtActiveMask) continue;
            auto same_site = [&](const Lane& l) {
                return l.state == LaneState::AtActiveMask && l.wait_line == lanes[i].wait_line &&
                       std::strcmp(l.wait_file, lanes[i].wait_file) == 0;
            };
            std::uint64_t mask = 0;
            for (unsigned k = i; k < b.warps[w].lanes; ++k)
                if (same_site(lanes[k])) mask |= 1ull << k;
            for (std::uint64_t m = mask; m; m &= m - 1) {
                Lane& l = lanes[std::countr_zero(m)];
                l.active_mask = mask;
                set_state(l, LaneState::Runnable);
                b.at_active_mask -= 1;
            }
            released = true;
        }
    }
    return released;
}

namespace {
// bar.red's result for each form, of `votes` true values among `threads`.
unsigned barrier_reduced(BarrierOp op, unsigned votes, unsigned threads)
{
    switch (op) {
    case BarrierOp::Popc: return votes;
    case BarrierOp::And: return votes == threads;
    case BarrierOp::Or: return votes != 0;
    case BarrierOp::None: break;
    }
    return 0;
}

// Every lane waits at one __syncthreads(): a new barrier interval begins.
void release_barrier(Block& b)
{
    const unsigned count = b.barrier_votes;
    for (std::size_t w = 0; w < b.warps.size(); ++w) b.warps[w].runnable = b.warps[w].lanes;  // what set_state would count
    if (!b.tally.empty())  // close_tally, asked once for the block
        for (Lane& l : b.lanes) close_tally_row(l);
    for (Lane& l : b.lanes) {
        l.state = LaneState::Runnable;
        l.epoch += 1;
        l.sub = 0;
        if (l.bar_op != BarrierOp::None) [[unlikely]] l.bar_value = barrier_reduced(l.bar_op, count, b.threads);
    }
    b.at_barrier = 0;
    b.barrier_votes = 0;
    settle_tally(b);
}
}  // namespace

// Nobody can run: release the barrier, or explain why the block is stuck.
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
        what << "warp deadlock: " << op_name(c.op) << " waits for lanes 0x" << std::hex << (c.mask & ~c.arrived)
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

}  // namespace wl::emu::detail
