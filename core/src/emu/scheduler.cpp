// The scheduler: which lane runs next. A launch spreads its blocks over host
// threads; a block runs warp by warp, each warp's lanes in lockstep rounds
// (Lockstep) or each to its next synchronisation in a shuffled order
// (Independent); when no lane can run, the block's waits are settled
// (__activemask(), the barrier, mbarrier deadlocks). Also the schedules' names.
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "fibers.h"
#include "warplab/parts.h"

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

namespace {
std::atomic<std::uint64_t> g_lane_instructions{0};
std::atomic<std::uint64_t> g_launch_nanoseconds{0};

// Adds the wall time from its making to its end (a fault's too) to the launches' total.
struct LaunchClock {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~LaunchClock()
    {
        const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
        g_launch_nanoseconds += static_cast<std::uint64_t>(took.count());
    }
};
}  // namespace

void Emulator::launch_body(const char* name, dim3 grid, dim3 block, const detail::KernelBody& body)
{
    const LaunchClock clock;
    detail::heap_new_launch();
    ++launches_on_[body.engine == Engine::Fast];
    detail::run_grid(name, grid, block, options, body, records_, switches_, detail::RunNotes{&warnings_, &records_cut_});
}

std::uint64_t lane_instructions_run() { return g_lane_instructions.load(std::memory_order_relaxed); }
double launch_seconds_run() { return double(g_launch_nanoseconds.load(std::memory_order_relaxed)) * 1e-9; }

namespace detail {
namespace {

// $WARPLAB_HOST_THREADS (wl::host_threads), refused as a launch's error. With 1 the blocks run
// one after another in order, as in the browser build (which has one thread), so that blocks
// meeting through atomics (stream-K's tiles) trace the same there.
unsigned host_threads()
{
    try {
        return wl::host_threads();
    } catch (const std::invalid_argument& e) {
        throw LaunchError(e.what());
    }
}

std::uint64_t mix(std::uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

// Lockstep: every runnable lane runs once (up to its next access or
// synchronisation) per round, in lane order, so a warp instruction's loads
// all happen before its stores, as on pre-Volta hardware.
bool run_warp_lockstep(Block& b, unsigned w)
{
    bool ran = false;
    const unsigned first = w * b.warp_width, last = first + b.warps[w].lanes;
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

// The same pass as one call into a run_pass body, which takes its lanes from pass_lanes().
bool run_pass(Block& b, Lane* lanes, const unsigned* order, unsigned odd, unsigned offset, unsigned count)
{
    WarpPass& p = tls_pass;
    p = WarpPass{&b, lanes, order, odd, offset, count, nullptr, false};
    try {
        b.body.run_pass(b.body.ctx);
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
    const unsigned width = b.warp_width;
    Lane* lanes = &b.lanes[w * width];
    if (warp.runnable == 0) return false;
    unsigned order[kMaxWarpWidth];
    std::uint64_t r = mix(b.opt->seed ^ mix(b.flat * 1315423911ULL + w * 2654435761ULL + ++warp.round));
    if (warp.lanes == width) {
        // i -> (i * odd + offset) mod width is a permutation: a random one of
        // width^2 / 2 (512 at 32), cheaply. A pass takes it as it goes.
        const unsigned odd = static_cast<unsigned>(r) | 1u, offset = static_cast<unsigned>(r >> 32);
        if (b.body.run_pass) return run_pass(b, lanes, nullptr, odd, offset, width);
        for (unsigned i = 0; i < width; ++i) order[i] = (i * odd + offset) & (width - 1);
    } else {
        for (unsigned i = 0; i < warp.lanes; ++i) order[i] = i;
        for (unsigned i = warp.lanes; i > 1; --i) {  // Fisher-Yates, 32 random bits per draw
            if ((i & 1) == 0) r = mix(r + i);
            const auto draw = static_cast<std::uint32_t>(r >> ((i & 1) * 32));
            std::swap(order[i - 1], order[(std::uint64_t(draw) * i) >> 32]);
        }
    }
    if (b.body.run_pass) return run_pass(b, lanes, order, 0, 0, warp.lanes);
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

// Sets up the block's lanes and warps in mem, ready for its first turn.
void start_block(Block& b, WorkerMemory& mem)
{
    b.arena = mem.arena.get();
    b.shadow = mem.shadow.get();
    if (mem.lanes.size() < b.threads) mem.lanes.resize(b.threads);
    if (mem.clocks.size() < std::size_t(b.threads) * kMaxWarpWidth) mem.clocks.resize(std::size_t(b.threads) * kMaxWarpWidth);
    b.lanes = Block::LaneSpan{mem.lanes.data(), b.threads};
    const unsigned warps = (b.threads + b.warp_width - 1) / b.warp_width;
    if (mem.warps.size() < warps) mem.warps.resize(warps);
    b.warps = Block::WarpSpan{mem.warps.data(), warps};
    for (unsigned w = 0; w < warps; ++w) {
        Warp& warp = b.warps[w];
        warp.lanes = std::min(b.warp_width, b.threads - w * b.warp_width);
        warp.runnable = warp.lanes;
        warp.all_started = false;
        warp.at_barrier_unwritten = 0;  // a fault may have left some
        warp.round = 0;
        warp.open = nullptr;
        std::fill_n(warp.full_vc, b.warp_width, 0u);
        for (Collective& c : warp.pending) c.in_use = false;
    }
    uint3 tid{0, 0, 0};  // thread t's index, counted along (x fastest)
    for (unsigned t = 0; t < b.threads; ++t) {
        Lane& l = b.lanes[t];
        l.state = LaneState::Runnable;
        l.seq = l.epoch = l.sub = l.declared = 0;
        l.has_vc = false;
        l.vc = mem.clocks.data() + std::size_t(t) * kMaxWarpWidth;
        l.synced = nullptr;
        l.collective = nullptr;
        l.started = false;
        l.spun = false;
        l.bar_op = BarrierOp::None;
        l.bar_value = 0;
        l.view = ThreadView{tid, b.idx, b.dim, b.grid};
        if (++tid.x == b.dim.x) {
            tid.x = 0;
            if (++tid.y == b.dim.y) tid.y = 0, ++tid.z;
        }
        l.block = &b;
        l.flat = t;
        l.warp = t >> b.warp_shift;
        l.lane = t & (b.warp_width - 1);
        l.clock = 1;
        if (!b.body.run_lane) make_fiber(l, mem, t);
    }
    start_tally(b);
}

// Cooperative launches: every lane that can run has, since its last turn,
// only seen a spin loop's value unchanged (spin_yield), so the block waits on
// another block.
bool spins_only(const Block& b)
{
    bool any = false;
    for (const Lane& l : b.lanes) {
        if (l.state != LaneState::Runnable) continue;
        if (!l.spun) return false;
        any = true;
    }
    return any;
}

// What a block's turn came to.
enum class Turn { Ended, Waits, WaitsUnmoved };  // WaitsUnmoved: its lanes did nothing but spin

// Runs the block until it ends or faults; in a cooperative launch, also until
// it waits on another block (Turn::Waits), when the next block takes its turn.
Turn block_turn(Block& b)
{
    const bool lockstep = b.opt->schedule == Schedule::Lockstep;
    for (unsigned pass = 0;; ++pass) {
        bool ran = false;
        for (unsigned w = 0; w < b.warps.size() && !b.fault; ++w)
            ran |= lockstep ? run_warp_lockstep(b, w) : run_warp_independent(b, w);
        if (b.fault) return Turn::Ended;
        if (ran && b.opt->cooperative && spins_only(b)) return pass == 0 ? Turn::WaitsUnmoved : Turn::Waits;
        if (ran) continue;
        if (std::all_of(b.lanes.begin(), b.lanes.end(), [](const Lane& l) { return l.state == LaneState::Done; })) return Turn::Ended;
        if (release_active_masks(b)) continue;
        settle_barrier(b);
        if (b.fault) return Turn::Ended;
    }
}

void run_block(Block& b, WorkerMemory& mem)
{
    start_block(b, mem);
    block_turn(b);
    finish_tally(b);
}

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

// The i-th block of the launch, before its start.
void place_block(Block& b, const char* kernel, dim3 grid, dim3 block, const LaunchOptions& opt, const KernelBody& body,
                 std::uint64_t i, std::vector<LaneRecord>* records, GlobalShadow* global)
{
    b.global = global;
    b.kernel = kernel;
    b.opt = &opt;
    b.body = body;
    b.idx = uint3{static_cast<unsigned>(i % grid.x), static_cast<unsigned>((i / grid.x) % grid.y),
                  static_cast<unsigned>(i / (std::uint64_t(grid.x) * grid.y))};
    b.dim = block;
    b.grid = grid;
    b.flat = static_cast<unsigned>(i);
    b.threads = block.x * block.y * block.z;
    b.warp_width = opt.warp_width;
    b.warp_shift = static_cast<unsigned>(std::countr_zero(opt.warp_width));
    b.watched = opt.record && std::find(opt.watched_blocks.begin(), opt.watched_blocks.end(), i) != opt.watched_blocks.end();
    b.records = records;
    b.max_records = static_cast<std::size_t>(std::min<std::uint64_t>(opt.max_record_bytes / sizeof(LaneRecord), SIZE_MAX));
}

// Set while a cooperative grid that waits forever gets its last turn: the
// first lane to spin again faults there (grid_spin).
WL_RUNTIME_TLS bool tls_grid_stuck = false;

// Rounds in which no block did more than spin before the grid counts as
// waiting forever. One would do for the toolkit's grid barrier; a few let a
// lane that left one spin loop for another show that it moved.
constexpr unsigned kStuckRounds = 4;

// A cooperative launch: every block resident at once, each with its own lanes,
// fiber stacks (explicit-state lanes keep their state per host thread, so
// these run on fibers) and shared memory, taking turns on this host thread
// until all have ended.
void run_resident(const char* kernel, dim3 grid, dim3 block, const LaunchOptions& opt, KernelBody body,
                  std::vector<trace::LaneRecord>& records, RunNotes notes)
{
    body.run_lane = nullptr;
    body.run_pass = nullptr;
    const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
    const unsigned threads = block.x * block.y * block.z;
    std::deque<Block> resident;  // a deque: lanes point at their block
    std::vector<std::unique_ptr<WorkerMemory>> memory;
    std::vector<Block*> waiting;
    const std::shared_ptr<GlobalShadow> global = make_global_shadow(false);
    for (std::uint64_t i = 0; i < blocks; ++i) {
        Block& b = resident.emplace_back();
        place_block(b, kernel, grid, block, opt, body, i, &records, global.get());
        try {
            memory.push_back(std::make_unique<WorkerMemory>(threads, false));
        } catch (const std::bad_alloc&) {
            throw LaunchError("a cooperative grid of " + std::to_string(blocks) + " blocks of " + std::to_string(threads) +
                              " threads: this machine cannot hold more than " + std::to_string(i) +
                              " of them resident at once (each keeps its own fiber stacks and shared memory)");
        }
        start_block(b, *memory.back());
        waiting.push_back(&b);
    }
    const Block* faulted = nullptr;
    for (unsigned unmoved = 0; !waiting.empty() && !faulted;) {
        bool moved = false;
        for (Block* b : waiting) {
            const Turn t = block_turn(*b);
            moved |= t != Turn::WaitsUnmoved;
            if (b->fault) {
                faulted = b;
                break;
            }
        }
        std::erase_if(waiting, [](const Block* b) { return std::all_of(b->lanes.begin(), b->lanes.end(), [](const Lane& l) {
                                                           return l.state == LaneState::Done;
                                                       }); });
        unmoved = moved ? 0 : unmoved + 1;
        if (unmoved == kStuckRounds && !faulted) {  // the first block's spinning lane says where it waits
            tls_grid_stuck = true;
            block_turn(*waiting.front());
            tls_grid_stuck = false;
            faulted = waiting.front();
        }
    }
    for (Block& b : resident) {
        finish_tally(b);
        *notes.records_cut |= b.records_cut;
        for (Warning& w : b.warnings) add_warning(*notes.warnings, std::move(w));
    }
    if (faulted && faulted->fault) throw KernelFault(*faulted->fault);
    if (faulted) throw LaunchError("the cooperative grid waits forever in a spin loop, and no lane of block 0 spins again");
}


}  // namespace

void grid_spin(const char* file, unsigned line)
{
    if (tls_grid_stuck)
        fault(*tls_lane, file, line,
              "every block of this cooperative grid that has not ended waits in a spin loop that no block will end: "
              "a grid.sync() that some block does not reach? (on a GPU the launch hangs)");
}

void run_grid(const char* kernel, dim3 grid, dim3 block, const LaunchOptions& opt, const KernelBody& body,
              std::vector<trace::LaneRecord>& records, std::uint64_t& switches, RunNotes notes)
{
    const std::uint64_t threads = std::uint64_t(block.x) * block.y * block.z;
    const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
    if (threads == 0 || threads > 1024)
        throw LaunchError("invalid block size " + std::to_string(threads) + ": a block holds 1 to 1024 threads");
    if (block.z > 64) throw LaunchError("invalid block: blockDim.z is at most 64");
    if (blocks == 0) throw LaunchError("invalid grid: it has no blocks");
    if (grid.y > 65535 || grid.z > 65535) throw LaunchError("invalid grid: gridDim.y and gridDim.z are at most 65535");
    if (opt.warp_width != 32 && opt.warp_width != 64)
        throw LaunchError("invalid warp width " + std::to_string(opt.warp_width) + ": a warp has 32 or 64 lanes");
    if (opt.cooperative) {
        const std::uint64_t switches_before = tls_switches, instructions_before = tls_lane_instructions;
        run_resident(kernel, grid, block, opt, body, records, notes);
        switches += tls_switches - switches_before;
        g_lane_instructions += tls_lane_instructions - instructions_before;
        return;
    }

    const unsigned cores = host_threads();
    const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(opt.workers ? opt.workers : cores, blocks));
    const std::shared_ptr<GlobalShadow> global = make_global_shadow(workers > 1);
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
            const std::uint64_t switches_before = tls_switches, instructions_before = tls_lane_instructions;
            PooledMemory pooled(static_cast<unsigned>(threads));
            WorkerMemory& mem = pooled.get();
            std::vector<LaneRecord> local;
            for (std::uint64_t i; !stop && (i = next++) < blocks;) {
                Block b;
                place_block(b, kernel, grid, block, opt, body, i, &local, global.get());
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
            g_lane_instructions += tls_lane_instructions - instructions_before;
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
