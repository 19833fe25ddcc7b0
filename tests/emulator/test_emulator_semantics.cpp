// What a kernel sees on the emulator, checked against CUDA's rules with
// results derived by hand: warp intrinsics (with partial masks and width
// segments), atomics, 2D indices, partial warps, per-block shared memory,
// device memory, and the two lane schedules. The kernels are plain CUDA
// (semantics_kernels.cu), compiled by nvcc and run by the PTX interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "emulator/helpers.h"
#include "emulator/ptx_modules.h"
#include "emulator/semantics_rows.h"
#include "core/src/emu/runtime.h"  // find_allocation
#include "warplab/trace/analysis.h"

namespace warplab::test {
namespace {

using namespace semantics;

const wl::ptx::Module& semantics_module() { return module_of("tests/emulator/semantics_kernels.cu"); }

template <class... A> void run(Emulator& emu, const char* kernel, dim3 grid, dim3 block, const A&... args)
{
    wl::ptx::launch(emu, semantics_module(), kernel, grid, block, 0, args...);
}

// Launches a kernel on one block of one warp.
template <class... A> void run_one_warp(Emulator& emu, const char* kernel, const A&... args)
{
    run(emu, kernel, dim3(1), dim3(kLanes), args...);
}

class PerSchedule : public ::testing::TestWithParam<Schedule> {
protected:
    void SetUp() override
    {
        WL_SKIP_WITHOUT_NVCC();
        emu.options.schedule = GetParam();
    }
    Emulator emu;
};

// Results of one warp, one row of 32 lanes per quantity, in one allocation.
template <class T> T row_value(const std::vector<T>& rows, unsigned row, unsigned lane) { return rows[row * kLanes + lane]; }

// ---- shuffles ----

TEST_P(PerSchedule, ShuffleDownTreeSumGivesLaneZeroTheWarpSum)
{
    int* out = emu.alloc<int>(32);
    run_one_warp(emu, "shuffle_down_tree_sum", out);
    // Lane l starts with l; lane 0 ends with 0 + 1 + ... + 31 = 31 * 32 / 2 = 496.
    EXPECT_EQ(to_host(emu, out, 32)[0], 496);
}

TEST_P(PerSchedule, ShuffleUpXorAndIndex)
{
    int* out = emu.alloc<int>(kShuffleRows * 32);
    run_one_warp(emu, "shuffle_variants", out);
    const auto rows = to_host(emu, out, kShuffleRows * 32);
    for (int lane = 0; lane < 32; ++lane) {
        SCOPED_TRACE("lane " + std::to_string(lane));
        // Each lane offers 100 + lane, so a result names the lane it came from.
        // up by 3: lanes 0..2 have no source 3 below them and keep their own value.
        EXPECT_EQ(row_value(rows, kUp3, lane), lane < 3 ? 100 + lane : 100 + lane - 3);
        // xor 5: lane l reads lane l ^ 5 (e.g. 0 <-> 5, 2 <-> 7, 8 <-> 13).
        EXPECT_EQ(row_value(rows, kXor5, lane), 100 + (lane ^ 5));
        // index 7: everybody reads lane 7; index 37 wraps modulo 32 to lane 5.
        EXPECT_EQ(row_value(rows, kIdx7, lane), 107);
        EXPECT_EQ(row_value(rows, kIdx37, lane), 105);
    }
}

TEST_P(PerSchedule, ShuffleWidthSplitsTheWarpIntoSegments)
{
    int* out = emu.alloc<int>(kSegmentRows * 32);
    run_one_warp(emu, "shuffle_in_segments", out);
    const auto rows = to_host(emu, out, kSegmentRows * 32);
    for (int lane = 0; lane < 32; ++lane) {
        SCOPED_TRACE("lane " + std::to_string(lane));
        // width 16, down 4: position p = lane % 16 reads p + 4 inside its
        // segment; lanes 12..15 and 28..31 would leave it and keep their own.
        EXPECT_EQ(row_value(rows, kDown4Width16, lane), lane % 16 < 12 ? 100 + lane + 4 : 100 + lane);
        // width 16, index 3: lane 3 of the caller's segment, i.e. lane 3 or 19.
        EXPECT_EQ(row_value(rows, kIdx3Width16, lane), lane < 16 ? 103 : 119);
        // width 8, up 2: positions 0 and 1 of each segment of 8 keep their own.
        EXPECT_EQ(row_value(rows, kUp2Width8, lane), lane % 8 < 2 ? 100 + lane : 100 + lane - 2);
    }
}

TEST_P(PerSchedule, ShuffleXorMayReadAnEarlierSegmentButNotALaterOne)
{
    // CUDA Programming Guide, __shfl_xor_sync: "If width is less than
    // warpSize then each group of width consecutive threads are able to
    // access elements from earlier groups of threads, however if they attempt
    // to access elements from later groups of threads their own value of var
    // will be returned." (PTX shfl.bfly: source j = lane ^ 16 is taken when
    // j <= maxLane = (lane & segmask) | 15.)
    int* out = emu.alloc<int>(32);
    run_one_warp(emu, "shuffle_xor_across_segments", out);
    const auto x = to_host(emu, out, 32);
    for (int lane = 0; lane < 32; ++lane) {
        SCOPED_TRACE("lane " + std::to_string(lane));
        // Lanes 0..15: lane ^ 16 is in the later segment: own value.
        // Lanes 16..31: lane ^ 16 = lane - 16 is in the earlier segment: read it.
        EXPECT_EQ(x[lane], lane < 16 ? 100 + lane : 100 + lane - 16);
    }
}

// ---- votes and warp reductions with partial masks ----

TEST_P(PerSchedule, VotesAndReduceAddHonourPartialMasks)
{
    unsigned* out = emu.alloc<unsigned>(kVoteRows * 32);
    run_one_warp(emu, "votes_in_halves", out);
    const auto rows = to_host(emu, out, kVoteRows * 32);
    for (unsigned lane = 0; lane < 32; ++lane) {
        SCOPED_TRACE("lane " + std::to_string(lane));
        const bool low = lane < 16;
        // ballot(lane % 3 == 0): low half lanes 0,3,6,9,12,15 -> 1+8+64+512+4096+32768
        // = 0x9249; high half lanes 18,21,24,27,30 -> 0x49240000.
        EXPECT_EQ(row_value(rows, kBallot, lane), low ? 0x00009249u : 0x49240000u);
        // any(lane == 20): lane 20 is only in the high half.
        EXPECT_EQ(row_value(rows, kAny, lane), low ? 0u : 1u);
        // all(lane != 7): lane 7 is only in the low half.
        EXPECT_EQ(row_value(rows, kAll, lane), low ? 0u : 1u);
        // reduce_add(lane): 0+...+15 = 120; 16+...+31 = 376.
        EXPECT_EQ(row_value(rows, kReduceAdd, lane), low ? 120u : 376u);
    }
}

TEST_P(PerSchedule, SyncwarpWithPartialMaskOrdersItsLanes)
{
    // Lanes 16..31 exit at once; the __syncwarp() of lanes 0..15 must not wait for them.
    int* out = emu.alloc<int>(16);
    ASSERT_NO_THROW(run_one_warp(emu, "exchange_in_low_half", out));
    const auto got = to_host(emu, out, 16);
    // Lane l reads what lane 15 - l wrote: (15 - l)^2.
    for (int lane = 0; lane < 16; ++lane) EXPECT_EQ(got[lane], (15 - lane) * (15 - lane)) << "lane " << lane;
}

// ---- atomics ----

TEST_P(PerSchedule, GlobalAtomicAddIsExactAcrossParallelBlocks)
{
    // 37 blocks of 96 threads on all host cores (workers = 0).
    unsigned* threads = zeros<unsigned>(emu, 1);
    unsigned* numbers = zeros<unsigned>(emu, 1);
    run(emu, "count_threads_and_blocks", dim3(37), dim3(96), threads, numbers);
    // 37 * 96 = 3552 increments.
    EXPECT_EQ(to_host(emu, threads, 1)[0], 3552u);
    // Each of the 96 threads of block b adds b + 1: 96 * (1 + ... + 37) = 96 * 703 = 67488.
    EXPECT_EQ(to_host(emu, numbers, 1)[0], 67488u);
}

TEST_P(PerSchedule, SharedAtomicAddIsExactAndNotARace)
{
    // 3 blocks of 100 threads (4 warps, the last with 4 lanes).
    unsigned* out = emu.alloc<unsigned>(12);
    ASSERT_NO_THROW(run(emu, "shared_bins_of_thread_ids", dim3(3), dim3(100), out));
    // Bin r sums the 25 ids r, r+4, ..., r+96: 25r + 4 * (0 + ... + 24) = 25r + 1200.
    const std::vector<unsigned> bins{1200, 1225, 1250, 1275};
    const auto got = to_host(emu, out, 12);
    for (unsigned b = 0; b < 3; ++b)
        EXPECT_EQ(std::vector<unsigned>(got.begin() + 4 * b, got.begin() + 4 * b + 4), bins) << "block " << b;
}

// ---- indices and dimensions ----

TEST_P(PerSchedule, TwoDimensionalBlocksAndGrid)
{
    // Blocks of 8 x 5 (40 threads: a full warp and one of 8 lanes), grid 3 x 2:
    // an image 24 wide and 10 high.
    constexpr unsigned kW = 24, kH = 10;
    unsigned* image = emu.alloc<unsigned>(kW * kH);
    unsigned* dims = emu.alloc<unsigned>(1);
    run(emu, "position_digits", dim3(3, 2), dim3(8, 5), image, dims);
    const auto got = to_host(emu, image, kW * kH);
    for (unsigned y = 0; y < kH; ++y)
        for (unsigned x = 0; x < kW; ++x) {
            // Pixel (x, y) belongs to thread (x % 8, y % 5) of block (x / 8, y / 5).
            const unsigned expected = x % 8 + 10 * (y % 5) + 100 * (x / 8) + 1000 * (y / 5);
            ASSERT_EQ(got[y * kW + x], expected) << "pixel (" << x << "," << y << ")";
        }
    // blockDim (8,5,1), gridDim (3,2,1): 8 + 50 + 100 + 3000 + 20000 + 100000.
    EXPECT_EQ(to_host(emu, dims, 1)[0], 123158u);
}

TEST_P(PerSchedule, PartialLastWarpOfABlockOf40)
{
    unsigned* out = emu.alloc<unsigned>(40);
    ASSERT_NO_THROW(run(emu, "warp_sums_of_partial_block", dim3(1), dim3(40), out));
    const auto got = to_host(emu, out, 40);
    // Warp 0: 0 + ... + 31 = 496. Warp 1 has lanes for threads 32..39 only:
    // 32 + ... + 39 = 8 * 35.5 = 284.
    for (unsigned t = 0; t < 40; ++t) EXPECT_EQ(got[t], t < 32 ? 496u : 284u) << "thread " << t;

    // The trace knows warp 1 has only 8 lanes. Steps: 0 ends at the barrier
    // (no work), 1 holds the reduction, 2 the stores after it (a warp
    // collective opens a step). Steps 1 and 2 have all 40 threads in 2 warps,
    // none partially active.
    const auto block = wl::trace::group_block(0, 40, emu.take_records());
    const auto steps = wl::trace::analyze_steps(block);
    ASSERT_EQ(steps.size(), 3u);
    for (unsigned s : {1u, 2u}) {
        EXPECT_EQ(steps[s].active_threads, 40u) << "step " << s;
        EXPECT_EQ(steps[s].active_warps, 2u) << "step " << s;
        EXPECT_EQ(steps[s].partial_warps, 0u) << "step " << s;
    }
}

// ---- device memory ----

TEST(DeviceMemory, EmulatorReleasesEveryAllocationOnce)
{
    // Three buffers of 32 ints: each is device memory of 32 elements while the
    // emulator lives. One is freed by hand, which must leave the others alone;
    // freeing it again, or memory another emulator owns, is refused (it would
    // otherwise release host memory twice); the emulator's destructor releases
    // the other two, after which none is device memory.
    // Bytes of the allocation holding p, or none (throws) when p is not device memory.
    auto elements_from = [](const int* p, std::size_t elem) {
        std::uintptr_t base = 0;
        std::size_t bytes = 0;
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        if (!wl::emu::detail::find_allocation(at, base, bytes)) throw wl::emu::LaunchError("not device memory");
        return (base + bytes - at) / elem;
    };
    std::vector<int*> buffers;
    {
        Emulator emu, other;
        for (int k = 0; k < 3; ++k) buffers.push_back(emu.alloc<int>(32));
        for (int* b : buffers) EXPECT_EQ(elements_from(b, sizeof(int)), 32u);
        emu.free(buffers[1]);
        EXPECT_THROW(elements_from(buffers[1], sizeof(int)), wl::emu::LaunchError);
        EXPECT_EQ(elements_from(buffers[0], sizeof(int)), 32u);
        EXPECT_EQ(elements_from(buffers[2], sizeof(int)), 32u);
        EXPECT_THROW(emu.free(buffers[1]), wl::emu::LaunchError) << "a second free of the same buffer";
        EXPECT_THROW(other.free(buffers[0]), wl::emu::LaunchError) << "a free by an emulator that does not own it";
        EXPECT_EQ(elements_from(buffers[0], sizeof(int)), 32u) << "the refused free released it anyway";
    }
    for (int* b : buffers) EXPECT_THROW(elements_from(b, sizeof(int)), wl::emu::LaunchError);
}

// ---- shared memory is per block ----

TEST(SharedMemory, IsFreshForEveryBlock)
{
    // One worker runs block 0 then block 1 in the same host memory; block 1
    // must still find its shared word poisoned, not block 0's 7.
    WL_SKIP_WITHOUT_NVCC();
    Emulator emu;
    emu.options.workers = 1;
    int* out = emu.alloc<int>(2);
    const std::string kernels = "tests/emulator/faulty_kernels.cu";
    auto f = fault_of([&] {
        wl::ptx::launch(emu, module_of(kernels), "read_previous_blocks_shared", dim3(2), dim3(1), 0, out, 7);
    });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"read_previous_blocks_shared", {1, 0, 0}, uint3{0, 0, 0}, project_file(kernels),
                                    "FAULT(read_previous_blocks_shared)", {"uninitialised shared memory", "word[0]"}});
}

// ---- the two schedules ----

// The order in which the 32 lanes of arrival_order took their two tickets each.
std::vector<unsigned> arrivals(Schedule schedule, std::uint64_t seed)
{
    Emulator emu;
    emu.options.schedule = schedule;
    emu.options.seed = seed;
    unsigned* order = emu.alloc<unsigned>(64);
    run_one_warp(emu, "arrival_order", order);
    return to_host(emu, order, 64);
}

TEST(Schedules, LockstepInterleavesLanesAtEveryAccess)
{
    // Each lane's first ticket is taken in one round, in lane order (0..31),
    // and the second tickets in the next round (32..63).
    WL_SKIP_WITHOUT_NVCC();
    const auto order = arrivals(Schedule::Lockstep, 1);
    for (unsigned k = 0; k < 32; ++k) {
        EXPECT_EQ(order[k], k);
        EXPECT_EQ(order[32 + k], k);
    }
}

TEST(Schedules, IndependentRunsEachLaneToItsNextSyncInShuffledOrder)
{
    // With no synchronisation between its two atomics, a lane takes both
    // tickets before the next lane runs: tickets 2k and 2k+1 go to one lane.
    WL_SKIP_WITHOUT_NVCC();
    const auto order = arrivals(Schedule::Independent, 1);
    std::vector<unsigned> lanes;
    for (unsigned k = 0; k < 32; ++k) {
        EXPECT_EQ(order[2 * k], order[2 * k + 1]) << "tickets " << 2 * k << " and " << 2 * k + 1;
        lanes.push_back(order[2 * k]);
    }
    // Every lane arrived once, but not in lane order.
    std::vector<unsigned> sorted = lanes;
    std::sort(sorted.begin(), sorted.end());
    std::vector<unsigned> identity(32);
    std::iota(identity.begin(), identity.end(), 0u);
    EXPECT_EQ(sorted, identity);
    EXPECT_NE(lanes, identity);
}

// The lane whose id last_writer's one word holds at the end.
unsigned last_writer(Schedule schedule, std::uint64_t seed)
{
    Emulator emu;
    emu.options.schedule = schedule;
    emu.options.seed = seed;
    unsigned* out = emu.alloc<unsigned>(1);
    run_one_warp(emu, "last_writer", out);
    return to_host(emu, out, 1)[0];
}

TEST(Schedules, LanesAtOneInstructionGoInTheShuffledOrder)
{
    // The 32 lanes reach `out[0] = threadIdx.x` together and store one after
    // another: the last of them is left. Lockstep goes in lane order, so lane
    // 31 is left every time. The independent schedule runs the converged
    // lanes together too, in the pass's shuffled order: the lane left changes
    // with the seed (8 seeds giving one lane would mean lane order), and the
    // same seed gives the same lane.
    WL_SKIP_WITHOUT_NVCC();
    EXPECT_EQ(last_writer(Schedule::Lockstep, 1), 31u);
    std::set<unsigned> left;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const unsigned lane = last_writer(Schedule::Independent, seed);
        EXPECT_LT(lane, 32u);
        EXPECT_EQ(last_writer(Schedule::Independent, seed), lane) << "seed " << seed;
        left.insert(lane);
    }
    EXPECT_GT(left.size(), 1u);
}

TEST(Schedules, IndependentOrderIsReproducibleFromItsSeed)
{
    // Same seed, same order (a failing run can be replayed); another seed, another order.
    WL_SKIP_WITHOUT_NVCC();
    EXPECT_EQ(arrivals(Schedule::Independent, 7), arrivals(Schedule::Independent, 7));
    EXPECT_NE(arrivals(Schedule::Independent, 7), arrivals(Schedule::Independent, 8));
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, PerSchedule, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

}  // namespace
}  // namespace warplab::test
