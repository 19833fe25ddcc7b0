// The per-step metrics each reduction version exists to teach, measured on the
// emulator's trace of block 0 (n = 4096 ints, block 256), under both
// schedules: the grouping into warp events must not depend on lane order.
//
// Steps of v1-v3 with a block of 256 (each ends at a __syncthreads()):
//   step 0     load in[i] into sdata[tid]: all 256 threads
//   steps 1-8  the tree, one step per stride (8 = log2 256 strides)
//   step 9     thread 0 writes the block's sum
// In every tree step exactly 256 / 2^k threads work (k = 1..8), so the active
// thread counts are 256, 128, 64, 32, 16, 8, 4, 2, 1, then 1.
#include <gtest/gtest.h>

#include "emulator/helpers.h"
#include "labs/common/emulator_backend.h"
#include "labs/common/make_lab.h"
#include "labs/reduction/driver.h"
#include "labs/reduction/problem.h"
#include "labs/reduction/run.h"

namespace warplab::test {
namespace {

using wl::trace::StepMetrics;

constexpr std::size_t kN = 4096;
constexpr unsigned kBlock = 256;
constexpr unsigned kSteps = 10;
constexpr unsigned kFirstTreeStep = 1, kLastTreeStep = 8;

TracedRun trace_of(const std::string& version, Schedule schedule)
{
    return trace_version(reduction_lab(), emulator_request(version, kN, kBlock, "int", schedule));
}

class ReductionMetrics : public ::testing::TestWithParam<Schedule> {
protected:
    // (Tests index the steps with at(): a wrong step count fails, not crashes.)
    std::vector<StepMetrics> steps_of(const std::string& version) const
    {
        TracedRun run = trace_of(version, GetParam());
        EXPECT_TRUE(run.result.ok) << version << " gave a wrong sum";
        EXPECT_EQ(run.steps.size(), kSteps) << version;
        return run.steps;
    }
};

// Every shared access of every step is conflict-free (1 wavefront per instruction).
void expect_no_bank_conflicts(const std::vector<StepMetrics>& steps)
{
    for (const StepMetrics& m : steps) {
        SCOPED_TRACE("step " + std::to_string(m.step));
        EXPECT_GT(m.shared_load.requests + m.shared_store.requests, 0u) << "every step touches sdata";
        if (m.shared_load.requests) {
            EXPECT_EQ(m.shared_load.worst_ways, 1.0);
        }
        if (m.shared_store.requests) {
            EXPECT_EQ(m.shared_store.worst_ways, 1.0);
        }
        EXPECT_EQ(m.shared_load.wavefronts, m.shared_load.ideal);
        EXPECT_EQ(m.shared_store.wavefronts, m.shared_store.ideal);
    }
}

// A warp is only partly active in a step only where fewer than 32 threads work.
void expect_whole_warps_while_32_or_more_work(const std::vector<StepMetrics>& steps)
{
    unsigned wide_steps = 0;
    for (const StepMetrics& m : steps) {
        if (m.active_threads < 32) continue;
        ++wide_steps;
        EXPECT_EQ(m.partial_warps, 0u) << "step " << m.step << " (" << m.active_threads << " threads)";
    }
    // Steps 0-3 have 256, 128, 64, 32 threads: the check above is not vacuous.
    EXPECT_EQ(wide_steps, 4u);
}

TEST_P(ReductionMetrics, V1ToV3LoadCoalescedWithAllThreadsInStepZero)
{
    for (const char* version : {"v1", "v2", "v3"}) {
        SCOPED_TRACE(version);
        const StepMetrics m = steps_of(version).at(0);
        // Thread tid of block 0 reads in[tid]: each of the 8 warps reads 32
        // lanes x 4 contiguous bytes = 128 bytes from a 256-aligned buffer,
        // i.e. 4 sectors of 32 bytes per request, the ideal.
        EXPECT_EQ(m.active_threads, 256u);
        EXPECT_EQ(m.global_load.requests, 8u);
        EXPECT_EQ(m.global_load.sectors_per_request(), 4.0);
        EXPECT_EQ(m.global_load.sectors, m.global_load.ideal);
    }
}

TEST_P(ReductionMetrics, V1ToV3HalveTheirActiveThreadsPerStep)
{
    // See the step table at the top: 256 / 2^k in step k, then thread 0 alone.
    const std::vector<std::uint32_t> expected{256, 128, 64, 32, 16, 8, 4, 2, 1, 1};
    for (const char* version : {"v1", "v2", "v3"}) {
        std::vector<std::uint32_t> active;
        for (const StepMetrics& m : steps_of(version)) active.push_back(m.active_threads);
        EXPECT_EQ(active, expected) << version;
    }
}

TEST_P(ReductionMetrics, V1HasPartialWarpsInEveryTreeStepAndNoBankConflicts)
{
    const auto steps = steps_of("v1");
    // Step 0 is the load: all 256 threads, 8 full warps, none partial.
    EXPECT_EQ(steps.at(0).partial_warps, 0u);
    EXPECT_EQ(steps.at(0).active_warps, 8u);
    // At stride s = 2^(k-1) (step k) the threads with tid % 2s == 0 work:
    // 32/2s lanes of every warp while 2s <= 32 (steps 1-5: all 8 warps), then
    // one lane in every (2s/32)-th warp (steps 6-8: 4, 2, 1 warps). Every
    // working warp is partial: it never has all 32 lanes busy.
    const std::uint32_t partial[] = {8, 8, 8, 8, 8, 4, 2, 1};
    for (unsigned k = kFirstTreeStep; k <= kLastTreeStep; ++k) {
        EXPECT_EQ(steps.at(k).partial_warps, partial[k - 1]) << "step " << k;
        EXPECT_EQ(steps.at(k).partial_warps, steps.at(k).active_warps) << "step " << k;
    }
    // Active lanes 2s apart with 2s <= 32 read words 2s apart: distinct banks
    // (a multiple of 32 apart only beyond the warp); with 2s > 32 one lane per
    // warp. So 1 wavefront everywhere.
    expect_no_bank_conflicts(steps);
}

TEST_P(ReductionMetrics, V2HasWholeWarpsButTwoToEightWayConflicts)
{
    const auto steps = steps_of("v2");
    expect_whole_warps_while_32_or_more_work(steps);
    // At stride s, thread tid works on index 2*s*tid when tid < 256/(2s), and
    // loads words 2*s*tid and 2*s*tid + s. Word w is in bank w mod 32.
    //   s=1: 32 lanes, words 0,2,..,62 -> 16 banks with 2 words each:   2-way
    //   s=2: 32 lanes, words 4*tid     -> 8 banks x 4 words:            4-way
    //   s=4: 32 lanes, words 8*tid     -> 4 banks x 8 words:            8-way
    //   s=8: 16 lanes, words 16*tid    -> 2 banks x 8 words:            8-way
    //   s=16: 8 lanes, words 32*tid    -> bank 0 x 8 words:             8-way
    //   s=32: 4 lanes -> 4-way; s=64: 2 lanes -> 2-way; s=128: 1 lane -> 1
    // (the "+ s" load shifts every word by s: same bank spread).
    // These are the instructions nvcc emits: the loop over s is not peeled, so
    // step 1's two loads stay two 4-byte loads (`ld.shared.u32 %r22, [%r21]`
    // and `ld.shared.u32 %r23, [%r19]` in reduce_interleaved_strided<256u, int>
    // of kernels/ptx/reduction.ptx), not one 8-byte load.
    const double ways[] = {2, 4, 8, 8, 8, 4, 2, 1};
    for (unsigned k = kFirstTreeStep; k <= kLastTreeStep; ++k) {
        SCOPED_TRACE("step " + std::to_string(k));
        const StepMetrics& m = steps.at(k);
        EXPECT_EQ(m.shared_load.worst_ways, ways[k - 1]);
        ASSERT_FALSE(m.shared_load_ways.empty());
        for (double w : m.shared_load_ways) EXPECT_EQ(w, ways[k - 1]) << "every load instruction of the step";
    }
}

TEST_P(ReductionMetrics, V3HasWholeWarpsAndNoBankConflicts)
{
    const auto steps = steps_of("v3");
    // Thread tid < s works on words tid and tid + s: consecutive words in
    // consecutive banks, and the working threads are the first s of the block.
    expect_whole_warps_while_32_or_more_work(steps);
    expect_no_bank_conflicts(steps);
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, ReductionMetrics, ::testing::ValuesIn(kSchedules),
                         ScheduleParamName{});

// A global atomic (v9's "last block" counter) makes block 0's trace depend on
// how the other blocks are timed on the host threads, not on the schedule alone.
bool depends_on_other_blocks(const wl::trace::BlockTrace& block)
{
    for (const auto& e : block.events)
        if (e.kind == wl::trace::Kind::Atomic && e.space == wl::trace::Space::Global) return true;
    return false;
}

TEST(ReductionTrace, WarpEventsDoNotDependOnTheSchedule)
{
    // The same accesses grouped the same way: identical events, step keys and
    // metrics. Variants are left out (a racy one faults under Independent), and
    // versions the emulator cannot run.
    unsigned compared = 0;
    for (const VersionMeta& v : reduction_lab().versions) {
        if (v.variant || v.gpu_only) continue;
        SCOPED_TRACE(v.id);
        const TracedRun independent = trace_of(v.id, Schedule::Independent);
        const TracedRun lockstep = trace_of(v.id, Schedule::Lockstep);
        if (depends_on_other_blocks(independent.block)) continue;
        ++compared;
        EXPECT_EQ(independent.block.steps, lockstep.block.steps);
        EXPECT_TRUE(independent.block.events == lockstep.block.events);
        EXPECT_EQ(independent.totals.partial_warp_steps, lockstep.totals.partial_warp_steps);
        EXPECT_EQ(independent.totals.shared_load.wavefronts, lockstep.totals.shared_load.wavefronts);
    }
    EXPECT_GE(compared, 3u) << "at least v1-v3 are compared";
}

// v10 on an emulator that reports `sms` SMs, block 0 watched and analysed.
TracedRun trace_v10_on(unsigned sms, std::size_t n, Schedule schedule)
{
    Emulator emu;
    emu.options.schedule = schedule;
    EmulatorBackend be{emu, lab_module<reduction::Description>(), reduction::kKernels, sms};
    const std::vector<int> input = reduction::make_input<int>(n, 1);
    const int* d_in = to_device(emu, input);
    RunResult result;
    result.value = reduction::reduce_on<reduction::V10>(be, d_in, n, kBlock);
    result.expected = reduction::reference_sum(input);
    result.ok = result.value == result.expected;
    return TracedRun{wl::trace::analyze_block(emu.take_records(), 0, kBlock, wl::trace::lab_machine_code("reduction")),
                     std::move(result)};
}

// v10's warps load no piece from global memory: the copy engine does, and
// its copies are not warp accesses. One SM (the ring from 32 pieces) and
// n = 32 * 8192 + 40 ints: 32 pieces of 32 KB, one block (deterministic: it
// is also the last block), block 256.
//   global loads: the 40 elements after the pieces, elements 262144..262183
//     at byte 1 MiB (aligned): warp 0 one request of 4 sectors, warp 1
//     (8 lanes) one of 1 sector; then thread 0 of the last block reads
//     g_partial[0]: one request, 1 sector. 3 requests, 6 sectors in all.
//   shared loads: a piece is 2048 int4, 8 per thread; each warp's int4
//     load covers 512 consecutive bytes, 4 wavefronts and no conflict:
//     8 warps x 8 loads x 4 = 256 wavefronts a piece, 8192 for the 32, plus
//     the block sums' few.
TEST(ReductionTrace, V10WarpsReadThePieceFromSharedMemoryOnly)
{
    for (Schedule schedule : kSchedules) {
        SCOPED_TRACE(schedule_name(schedule));
        const TracedRun run = trace_v10_on(1, 32 * 8192 + 40, schedule);
        EXPECT_TRUE(run.result.ok);
        EXPECT_EQ(run.totals.global_load.requests, 3u);
        EXPECT_EQ(run.totals.global_load.sectors, 6u);
        EXPECT_GE(run.totals.shared_load.wavefronts, 8192u);
        EXPECT_LT(run.totals.shared_load.wavefronts, 8192u + 16u) << "the block sums add a few, not a piece's worth";
        EXPECT_EQ(run.totals.shared_load.wavefronts, run.totals.shared_load.ideal) << "conflict-free";
    }
}

// Where each SM would get fewer than 32 pieces, v10's launch gives no ring:
// its threads load int4s as v9's do, a round of four at a time, on a grid of
// one round a thread. On the lab's 132 SMs, n = 2^16 + 3 ints (8 whole
// pieces, 16384 int4): 16384 / (4 * 256) = 16 blocks (v9's grid: 64), a grid
// stride of 256 * 16 = 4096 int4, so each thread loads int4 t, t + 4096,
// t + 8192 and t + 12288, all below 16384. Block 0's loads, by hand: 8 warps
// x 4 requests of 512 bytes (16 sectors each), and the 3 elements after the
// last int4 (threads 0-2, 12 bytes at byte 262144): 1 request, 1 sector. 33
// requests, 513 sectors. If block 0 happens to finish last it also reads the
// 16 partials (threads 0-15: 1 request, 64 bytes, 2 sectors): 34 and 515.
// v9's grid would give 9 and 129 (one int4 a thread): that fails here.
// Shared memory holds no data: only the block sums' words and the flag.
TEST(ReductionTrace, V10WithoutItsRingLoadsFourInt4AThread)
{
    const std::size_t n = (std::size_t(1) << 16) + 3;
    EXPECT_FALSE(reduction::V10::ring(n, 132));
    EXPECT_EQ(reduction::V10::blocks(n, kBlock, 132), 16u);
    const TracedRun run = trace_v10_on(132, n, Schedule::Independent);
    EXPECT_TRUE(run.result.ok);
    const auto loads = std::make_pair(run.totals.global_load.requests, run.totals.global_load.sectors);
    EXPECT_TRUE(loads == std::make_pair(33u, 513u) || loads == std::make_pair(34u, 515u))
        << loads.first << " requests, " << loads.second << " sectors";
    EXPECT_LT(run.totals.shared_load.wavefronts, 16u);
}

// v10 says which launch it takes (RunResult::path, the viewer's status line,
// the bench's note), by ring(). On 132 SMs the ring needs 32 pieces of 8192
// ints an SM: 32 * 132 * 8192 = 34603008 ints streams through it, one block an
// SM (min(4224 pieces, 132) = 132 blocks). One int fewer is 4223 whole pieces:
// no ring, 34603007 / 4 = 8650751 int4 at 4 a thread of 1024 need 2112
// blocks, capped at one wave, 132 * (2048 / 1024) = 264. n = 4096 (the
// viewer's default): 1024 int4, one block.
TEST(ReductionTrace, V10SaysWhichLaunchItTakes)
{
    using reduction::V10;
    EXPECT_EQ(V10::path(34603008, 1024, 132), "streams through its ring of bulk copies, one block per SM (132 blocks)");
    EXPECT_EQ(V10::path(34603007, 1024, 132),
              "gives no ring here (under 32 pieces an SM): rounds of four loads a thread, as v9's, 264 blocks");
    EXPECT_EQ(V10::path(4096, 1024, 132),
              "gives no ring here (under 32 pieces an SM): rounds of four loads a thread, as v9's, 1 block");
}

}  // namespace
}  // namespace warplab::test
