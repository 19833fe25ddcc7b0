// Barriers: __syncthreads() (bar.sync, bar.red) and __activemask(), the waits
// the scheduler settles when no lane can run. One way in for every form of
// arrival (a fiber lane that blocks, an explicit-state lane that returns, a
// warp pass's converged lanes at once): arrive_at_barrier.
#include <bit>
#include <sstream>
#include <vector>

#include "block.h"
#include "races.h"

namespace wl::emu::detail {

namespace {
// A watched block's lanes record their arrival at the barrier at file:line.
void record_arrivals(Block& b, const unsigned* flats, unsigned count, const char* file, unsigned line)
{
    if (b.watched)
        for (unsigned i = 0; i < count; ++i)
            record_watched(b.lanes[flats[i]], trace::Kind::SyncThreads, trace::Space::None, 0, 0, 0, nullptr, 0, file, line);
}

// `count` running lanes of warp w, `votes` of them with a true value, arrive at the barrier at
// file:line: the block counts them, so that settle_barrier knows without a scan whether all wait
// at one site. True when that is the block's site (the first arrival's, the same file pointer).
bool count_arrivals(Block& b, unsigned w, unsigned count, unsigned votes, const char* file, unsigned line)
{
    b.warps[w].runnable -= count;  // from Runnable: what set_state would count
    b.barrier_votes += votes;
    const bool first = b.at_barrier == 0;
    if (first) {
        b.barrier_file = file;
        b.barrier_line = line;
        b.barrier_sites_differ = false;
    }
    const bool at_block_site = first || (b.barrier_file == file && b.barrier_line == line);
    b.barrier_sites_differ |= !at_block_site;
    b.at_barrier += count;
    return at_block_site;
}

// The lane waits at the barrier at file:line, as its Lane says.
void write_wait(Lane& lane, BarrierOp op, unsigned value, const char* file, unsigned line)
{
    lane.wait_file = file;
    lane.wait_line = line;
    lane.bar_op = op;
    lane.bar_value = value;
    lane.state = LaneState::AtBarrier;
}

// The lanes whose arrival was only counted (Warp::at_barrier_unwritten) are written into their
// Lane, before a scan of the block's lanes reads them.
void write_unwritten_waits(Block& b)
{
    for (std::size_t w = 0; w < b.warps.size(); ++w) {
        Warp& warp = b.warps[w];
        for (std::uint64_t m = warp.at_barrier_unwritten; m; m &= m - 1)
            write_wait(b.lanes[w * b.warp_width + std::countr_zero(m)], BarrierOp::None, 0, b.barrier_file, b.barrier_line);
        warp.at_barrier_unwritten = 0;
    }
}
}  // namespace

void barrier_arrive(BarrierOp op, unsigned value, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    Block& b = *lane.block;
    record_arrivals(b, &lane.flat, 1, file, line);
    write_wait(lane, op, value, file, line);
    count_arrivals(b, lane.warp, 1, value != 0 ? 1 : 0, file, line);
}

unsigned barrier_result() { return tls_lane->bar_value; }

unsigned barrier(BarrierOp op, unsigned value, const char* file, unsigned line)
{
    barrier_arrive(op, value, file, line);
    yield_to_scheduler(*tls_lane);
    return barrier_result();
}

// A pass's batch (lanes of one warp): at the block's site only counted, its lanes left untouched
// (Warp::at_barrier_unwritten); elsewhere each lane's wait written, for settle_barrier's message.
void barrier_arrive_lanes(const unsigned* flats, unsigned count, const char* file, unsigned line)
{
    if (count == 0) return;
    WarpPass& p = tls_pass;
    Block& b = *p.block;
    record_arrivals(b, flats, count, file, line);
    const unsigned w = flats[0] >> b.warp_shift;
    if (count_arrivals(b, w, count, 0, file, line)) {
        std::uint64_t lanes = 0;
        for (unsigned i = 0; i < count; ++i) lanes |= std::uint64_t{1} << (flats[i] & (b.warp_width - 1));
        b.warps[w].at_barrier_unwritten |= lanes;
    } else {
        for (unsigned i = 0; i < count; ++i) write_wait(b.lanes[flats[i]], BarrierOp::None, 0, file, line);
    }
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
// `participants`: the threads that arrived (the block's, less those that exited), for __syncthreads_and.
void release_barrier(Block& b, unsigned participants)
{
    const unsigned count = b.barrier_votes;
    for (std::size_t w = 0; w < b.warps.size(); ++w) {
        b.warps[w].runnable = b.warps[w].lanes;  // what set_state would count
        b.warps[w].at_barrier_unwritten = 0;
    }
    if (!b.tally.empty())  // close_tally, asked once for the block
        for (Lane& l : b.lanes) close_tally_row(l);
    for (Lane& l : b.lanes) {
        l.state = LaneState::Runnable;
        l.epoch += 1;
        l.sub = 0;
        if (l.bar_op != BarrierOp::None) [[unlikely]] {  // a bar.red's result; the next arrival may leave bar_op unwritten
            l.bar_value = barrier_reduced(l.bar_op, count, participants);
            l.bar_op = BarrierOp::None;
        }
    }
    b.at_barrier = 0;
    b.barrier_votes = 0;
    settle_tally(b);
}
// The lanes still waiting all wait at one __syncthreads(), and the others have exited: since Volta,
// bar.sync waits only for the threads that have not exited (PTX ISA, barrier; the Programming Guide's
// Independent Thread Scheduling), so the barrier completes for them. A warning, as the Guide asks that a
// barrier's condition be the same across the block (an early `return` before it is the usual case).
void release_past_exited(Block& b, const Lane& waiting, const Lane& exited)
{
    std::vector<Lane*> gone;
    for (Lane& l : b.lanes)
        if (l.state == LaneState::Done) gone.push_back(&l);
    warn(b, waiting.flat, waiting.wait_file, waiting.wait_line,
         thread_name(b, exited.flat) + " exited before this __syncthreads(), which then waits only for the threads "
         "that have not exited (so on every GPU since Volta); the Programming Guide asks that every thread of the "
         "block reach a barrier, or none");
    release_barrier(b, b.threads - static_cast<unsigned>(gone.size()));
    for (Lane* l : gone) set_state(*l, LaneState::Done);  // release_barrier made every lane runnable
}
}  // namespace

// Nobody can run: release the barrier, or explain why the block is stuck.
void settle_barrier(Block& b)
{
    if (b.at_mbarrier) {
        write_unwritten_waits(b);
        mbarrier_deadlock(b);
        return;
    }
    // The common case, known from the arrivals: every lane at the same site.
    if (b.at_barrier == b.threads && !b.barrier_sites_differ) {
        release_barrier(b, b.threads);
        return;
    }
    write_unwritten_waits(b);
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
    if (stuck && release_syncwarps_past_exited(b)) return;
    if (stuck) {
        std::ostringstream what;
        const Collective& c = *stuck->collective;
        what << "warp deadlock: " << op_name(c.op) << " waits for lanes 0x" << std::hex << (c.mask & ~c.arrived)
             << std::dec << " of warp " << stuck->warp << ", which have exited or wait elsewhere";
        stop(*stuck, what.str());
        return;
    }
    for (const Lane& l : b.lanes) {
        if (l.state == LaneState::Done) continue;
        const bool same_site = l.wait_line == waiting->wait_line &&
                               (l.wait_file == waiting->wait_file || std::strcmp(l.wait_file, waiting->wait_file) == 0);
        if (!same_site) {
            stop(*waiting, "barrier divergence: this thread waits at __syncthreads() here, but " +
                               thread_name(b, l.flat) + " waits at another __syncthreads() at " +
                               site(l.wait_file, l.wait_line));
            return;
        }
    }
    if (exited) release_past_exited(b, *waiting, *exited);
    else release_barrier(b, b.threads);
}

}  // namespace wl::emu::detail
