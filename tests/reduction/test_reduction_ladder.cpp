// The later rungs of the reduction ladder (v4..v9, v5-racy) on the emulator:
// large odd sizes, the per-step properties each version teaches, and the race
// in Harris's original warp tail. Block size 256, n = 4096 int unless stated.
#include <gtest/gtest.h>

#include <algorithm>

#include "emulator/helpers.h"
#include "labs/reduction/problem.h"

namespace warplab::test {
namespace {

using wl::trace::Kind;
using wl::trace::Space;
using wl::trace::StepMetrics;

TracedRun trace_of(const std::string& version, Schedule schedule = Schedule::Independent)
{
    return trace_version(reduction_lab(), emulator_request(version, 4096, 256, "int", schedule));
}

// ---- large odd sizes: more than one pass, ragged last block ----

class LargeOddSizes : public ::testing::TestWithParam<std::tuple<std::string, std::size_t>> {};

TEST_P(LargeOddSizes, SumIsRight)
{
    const auto& [version, n] = GetParam();
    for (const char* type : {"int", "float"}) {
        RunRequest req = emulator_request(version, n, 256, type, Schedule::Independent, 11);
        req.record = false;
        const RunResult r = reduction_lab().run(req);
        // int: exact (32-bit wrap-around sum); float: reduction::sum_matches's bound.
        EXPECT_TRUE(r.ok) << version << " " << type << " n=" << n << ": " << r.value << " expected " << r.expected;
    }
}

std::vector<std::tuple<std::string, std::size_t>> ladder_at_large_odd_sizes()
{
    std::vector<std::tuple<std::string, std::size_t>> out;
    for (const VersionMeta& v : reduction_lab().versions)
        // v5-racy races under the independent schedule, by design (below)
        if (!v.variant)
            for (std::size_t n : {(std::size_t(1) << 22) + 1, 3 * (std::size_t(1) << 20) + 7}) out.emplace_back(v.id, n);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Reduction, LargeOddSizes, ::testing::ValuesIn(ladder_at_large_odd_sizes()),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param));
                         });

// ---- per-step properties ----

TEST(ReductionLadder, V4ReadsTwoElementsPerThreadInItsFirstStep)
{
    // v4: n = 4096 = 8 blocks x (2 x 256). In step 0 every thread loads
    // g_in[i] and g_in[i + 256]: two global load instructions per warp, 8 warps
    // -> 16 requests, each 32 lanes x 4 contiguous bytes = 4 sectors (ideal 4).
    const TracedRun run = trace_of("v4");
    ASSERT_TRUE(run.result.ok);
    const StepMetrics& first = run.steps.at(0);
    EXPECT_EQ(first.active_threads, 256u);
    EXPECT_EQ(first.global_load.requests, 16u);
    EXPECT_EQ(first.global_load.sectors, 64u);
    EXPECT_EQ(first.global_load.ideal, 64u);
    // v3 for contrast: one element per thread, 8 requests.
    EXPECT_EQ(trace_of("v3").steps.at(0).global_load.requests, 8u);
}

// Steps from the first warp-collective one on: the warp-level tail.
std::vector<StepMetrics> tail_steps(const TracedRun& run)
{
    auto first = std::find_if(run.steps.begin(), run.steps.end(), [](const StepMetrics& s) { return s.collectives > 0; });
    return {first, run.steps.end()};
}

TEST(ReductionLadder, V5TailHasNoBlockBarrierAndNoStepHasAConflict)
{
    // v5 at block 256: step 0 (load), steps 1-2 (s = 128, 64) end at
    // __syncthreads(); warp 0's tail is 6 rounds of (read; __syncwarp; write;
    // __syncwarp) = 12 warp-collective steps, then the store of the result.
    const TracedRun run = trace_of("v5");
    ASSERT_TRUE(run.result.ok);
    ASSERT_EQ(run.steps.size(), 16u);
    for (int s = 0; s < 3; ++s) EXPECT_TRUE(run.steps[s].has_barrier_end) << "step " << s;
    const auto tail = tail_steps(run);
    ASSERT_EQ(tail.size(), 13u);  // 12 collective steps + the final store
    for (const StepMetrics& s : tail) {
        EXPECT_FALSE(s.has_barrier_end) << "step " << s.step << " ends at __syncthreads()";
        EXPECT_LE(s.active_warps, 1u) << "step " << s.step;
    }
    // Consecutive words tid, tid + s for s <= 32 sit in distinct banks: 1-way everywhere.
    for (const StepMetrics& s : run.steps) {
        EXPECT_LE(s.shared_load.worst_ways, 1.0) << "step " << s.step;
        EXPECT_LE(s.shared_store.worst_ways, 1.0) << "step " << s.step;
    }
}

TEST(ReductionLadder, V8WarpTailMakesNoSharedMemoryAccess)
{
    // v8's tail: `sum += sdata[tid + 32]` then five __shfl_down_sync rounds.
    // The shared read falls in the step the first shuffle ends; the four
    // steps ended by the other shuffles touch no shared memory at all.
    const TracedRun run = trace_of("v8");
    ASSERT_TRUE(run.result.ok);
    std::vector<StepMetrics> shuffles;
    for (const StepMetrics& s : run.steps)
        if (s.collectives > 0) shuffles.push_back(s);
    ASSERT_EQ(shuffles.size(), 5u);
    EXPECT_EQ(shuffles[0].shared_load.requests, 1u);  // sdata[tid + 32]
    for (std::size_t k = 1; k < shuffles.size(); ++k) {
        EXPECT_EQ(shuffles[k].shared_load.requests + shuffles[k].shared_store.requests, 0u) << "shuffle step " << k;
        EXPECT_EQ(shuffles[k].active_threads, 32u);
    }
    // v5's tail, for contrast, reads and writes shared memory in every round.
    const auto v5_tail = tail_steps(trace_of("v5"));
    EXPECT_GT(v5_tail.at(1).shared_store.requests, 0u);
}

// ---- Harris's original warp tail: a race since Volta ----

TEST(ReductionLadder, RacyTailIsReportedUnderIndependentScheduleAndV5IsNot)
{
    try {
        trace_of("v5-racy", Schedule::Independent);
        ADD_FAILURE() << "v5-racy ran without a race report under the independent schedule";
    } catch (const KernelFault& f) {
        EXPECT_NE(std::string(f.what()).find("data race on shared memory"), std::string::npos) << f.what();
        EXPECT_NE(std::string(f.what()).find("05_unroll_last_warp_racy.cuh"), std::string::npos) << f.what();
    }
    EXPECT_TRUE(trace_of("v5", Schedule::Independent).result.ok);
}

TEST(ReductionLadder, BothTailsGiveTheRightSumInLockstep)
{
    // Lockstep: every lane of warp 0 reads sdata[tid + s] before any lane
    // writes sdata[tid], as pre-Volta hardware did: Harris's tail is right there.
    for (const char* v : {"v5-racy", "v5"}) {
        const TracedRun run = trace_of(v, Schedule::Lockstep);
        EXPECT_TRUE(run.result.ok) << v << ": " << run.result.value << " expected " << run.result.expected;
    }
}

}  // namespace
}  // namespace warplab::test
