// Mbarriers: Hopper's transaction barrier in shared memory (mbarrier.init,
// arrive, expect_tx, try_wait) and the bulk copies (cp.async.bulk) that
// complete its transactions; a copy lands when a thread tests its mbarrier, so
// an early read of its bytes, and a race with the copy engine, are caught.
#include <bit>
#include <sstream>

#include "block.h"

namespace wl::emu::detail {

namespace {

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

// ---- phases as synchronisation ----
// A phase orders what each thread did before its arrival before what a thread
// does once its wait has seen the phase complete (NVIDIA, "PTX ISA":
// mbarrier.arrive releases, test_wait and try_wait acquire, at CTA scope by
// default), as vector clocks over the block's threads: a cuda::barrier or a
// cuda::pipeline stage orders the reads of one round before the copies that
// overwrite them in the next, whichever barrier of several it is.

Block::MbarrierClocks& clocks_of(Block& b, const void* bar)
{
    for (Block::MbarrierClocks& c : b.mbarrier_clocks)
        if (c.bar == bar) return c;
    const std::vector<std::uint32_t> zeros(clock_slots(b), 0);
    b.mbarrier_clocks.push_back(Block::MbarrierClocks{bar, zeros, {zeros, zeros}});
    return b.mbarrier_clocks.back();
}

void join_into(std::uint32_t* into, const std::uint32_t* from, unsigned n)
{
    for (unsigned k = 0; k < n; ++k) into[k] = std::max(into[k], from[k]);
}

// The lane's accesses so far, and what it learnt, go with bar's current phase.
void release_to_phase(Lane& lane, const void* bar)
{
    Block& b = *lane.block;
    Block::MbarrierClocks& c = clocks_of(b, bar);
    c.arriving[lane.flat] = std::max(c.arriving[lane.flat], lane_clock(lane));
    if (lane.synced) join_into(c.arriving.data(), lane.synced, clock_slots(b));
    // Its later accesses are not released (Lockstep: they come in later rounds).
    if (b.opt->schedule == Schedule::Independent) lane.clock += 1;
}

// The lane's row of Lane::synced, made (zeros) on first use.
std::uint32_t* synced_row(Lane& lane)
{
    Block& b = *lane.block;
    if (!lane.synced) {
        if (b.synced_rows.empty()) b.synced_rows.assign(std::size_t(b.threads) * clock_slots(b), 0);
        lane.synced = b.synced_rows.data() + std::size_t(lane.flat) * clock_slots(b);
    }
    return lane.synced;
}

// The lane has seen the phase of this parity complete: it learns what that phase released.
void acquire_from_phase(Lane& lane, const void* bar, unsigned parity)
{
    join_into(synced_row(lane), clocks_of(*lane.block, bar).released[parity & 1].data(), clock_slots(*lane.block));
}

// The phase of this parity completes: its arrivals are released. A late waiter
// for an older phase of the same parity learns the newer one's too (it may miss
// a race then, never report one that is not).
void complete_phase(Block& b, const void* bar, unsigned parity)
{
    if (b.mbarrier_clocks.empty()) return;
    Block::MbarrierClocks& c = clocks_of(b, bar);
    join_into(c.released[parity].data(), c.arriving.data(), clock_slots(b));
    std::fill(c.arriving.begin(), c.arriving.end(), 0u);
}

// A new mbarrier at bar (init), or none (inval): no phase of an earlier one orders anything.
void forget_phases(Block& b, const void* bar)
{
    std::erase_if(b.mbarrier_clocks, [&](const Block::MbarrierClocks& c) { return c.bar == bar; });
}

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
        complete_phase(b, bar, s.parity);
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

// The copy engine writes the bytes: they are initialised, written by the
// engine (a thread number of its own, copy_engine) at its next clock, which
// goes with the phase the copy completes: a thread that waited for that phase
// reads them in order, one that did not races with the copy.
void land(Lane& lane, const void* bar, const Block::BulkCopy& c)
{
    Block& b = *lane.block;
    std::memcpy(b.arena + c.dst, c.src, c.bytes);
    const unsigned engine = copy_engine(b);
    const SharedStamp stamp{++b.engine_clock, packed_stamp::pack(engine, 0xF, false, false, shared_site(b, c.file, c.line))};
    for (std::size_t w = c.dst / 4; w < (c.dst + c.bytes) / 4; ++w) {
        WordShadow& s = shadow_word(b, w, lane.epoch);
        s.initialised = 0xF;
        s.write = stamp;
    }
    Block::MbarrierClocks& clocks = clocks_of(b, bar);
    clocks.arriving[engine] = b.engine_clock;
}

// The bulk copies that signal bar land, and count their bytes off it.
void land_copies(Lane& lane, void* bar, MbarrierState& s, const char* file, unsigned line)
{
    Block& b = *lane.block;
    auto it = std::stable_partition(b.copies.begin(), b.copies.end(), [&](const Block::BulkCopy& c) { return c.bar != bar; });
    for (auto c = it; c != b.copies.end(); ++c) {
        land(lane, bar, *c);
        add_tx(lane, s, -std::int64_t(c->bytes), file, line);
    }
    b.copies.erase(it, b.copies.end());
}

// A bulk copy's destination word that another thread touched in this barrier
// interval, with nothing to order the two: a race with the copy engine.
void check_overwrite(Lane& lane, std::size_t word, const char* name, long long index, const char* file, unsigned line)
{
    const WordShadow& s = lane.block->shadow[word];
    for (const SharedStamp* stamp : {&s.write, &s.read, &s.read_other_warp}) {
        if (ordered(lane, s, *stamp)) continue;
        const AccessStamp other = shared_access(*lane.block, s, *stamp);
        std::ostringstream what;
        what << "data race on shared memory: the bulk copy issued here overwrites " << name << "[" << index << "], "
             << (stamp == &s.write ? "written" : "read") << " by " << thread_name(*lane.block, other.thread)
             << other_site(file, line, other.file, other.line)
             << ", with no __syncthreads() or wait on an mbarrier it arrived at between the two";
        fault(lane, file, line, what.str());
    }
}


}  // namespace

void share_synced(Block& b, unsigned base, std::uint64_t mask)
{
    if (b.synced_rows.empty()) return;  // no lane of the block has waited on an mbarrier
    std::vector<std::uint32_t> joined(clock_slots(b), 0);
    for (std::uint64_t m = mask; m; m &= m - 1) {
        const Lane& lane = b.lanes[base + std::countr_zero(m)];
        if (lane.synced) join_into(joined.data(), lane.synced, clock_slots(b));
        joined[lane.flat] = std::max(joined[lane.flat], lane_clock(lane));
    }
    for (std::uint64_t m = mask; m; m &= m - 1) std::memcpy(synced_row(b.lanes[base + std::countr_zero(m)]), joined.data(), clock_slots(b) * 4);
}

void mbarrier_init(void* bar, unsigned count, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    if (count == 0 || count > kMbarrierCountMax)
        fault(lane, file, line, "mbarrier.init with count " + std::to_string(count) + ": it must be 1 to 1048575");
    MbarrierState s;
    s.pending = s.expected = count;
    store_mbarrier(bar, s);
    forget_phases(*lane.block, bar);
    wake_mbarrier_waiters(*lane.block, bar);
}

unsigned mbarrier_arrive_drop(void* bar, unsigned count, const char* file, unsigned line)
{
    MbarrierState s = load_mbarrier(bar);
    if (count > s.expected)
        fault(*tls_lane, file, line, "mbarrier.arrive_drop: it drops " + std::to_string(count) + " arrivals, more than the " +
                                         std::to_string(s.expected) + " each phase still expects");
    s.expected -= count;
    store_mbarrier(bar, s);
    return mbarrier_arrive(bar, count, 0, file, line);
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
    if (count) release_to_phase(lane, bar);
    update_mbarrier(*lane.block, bar, s);
    return phase;
}

void mbarrier_release(void* bar) { release_to_phase(*tls_lane, bar); }

void mbarrier_inval(void* bar) { forget_phases(*tls_lane->block, bar); }

bool mbarrier_phase_done(void* bar, unsigned parity, const char* file, unsigned line)
{
    Lane& lane = *tls_lane;
    MbarrierState s = load_mbarrier(bar);
    if (!lane.block->copies.empty()) {
        land_copies(lane, bar, s, file, line);
        update_mbarrier(*lane.block, bar, s);
        s = load_mbarrier(bar);
    }
    const bool done = s.parity != (parity & 1);
    if (done) acquire_from_phase(lane, bar, parity);
    return done;
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

}  // namespace wl::emu::detail
