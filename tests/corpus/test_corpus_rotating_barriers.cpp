// Tile loops whose stages take turns on several cuda::barriers or on a
// cuda::pipeline's stages: the mbarrier phases order each copy before the
// reads of other threads and those reads before the copy that overwrites them;
// a read before its wait, and a copy into a stage still being read, are races.
#include "corpus/corpus_test.h"

namespace warplab::test {
namespace {

using RotatingBarriers = CorpusScheduleTest;
INSTANTIATE_TEST_SUITE_P(BothSchedules, RotatingBarriers, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

constexpr unsigned kTileInts = 128, kBlocks = 2, kTiles = 5;

// out[128 b + i] = sum over t of (t + 1) * in[(b * tiles + t) * 128 + 127 - i].
std::vector<int> weighted_sums(const std::vector<int>& in)
{
    std::vector<int> out(kBlocks * kTileInts, 0);
    for (unsigned b = 0; b < kBlocks; ++b)
        for (unsigned i = 0; i < kTileInts; ++i)
            for (unsigned t = 0; t < kTiles; ++t)
                out[b * kTileInts + i] += static_cast<int>(t + 1) * in[(b * kTiles + t) * kTileInts + kTileInts - 1 - i];
    return out;
}

const std::string& file() { static const std::string f = project_file(corpus_path("rotating_barriers.cu")); return f; }

TEST_P(RotatingBarriers, TwoAndThreeBarriersAndPipelineStagesRunWithoutARace)
{
    // 5 tiles a block: with 2 and 3 stages every stage is reused, the last
    // one at tile 4 (2 stages: tiles 0, 2, 4 share stage 0).
    const auto values = seeded_ints<int>(kBlocks * kTiles * kTileInts, -1000, 1000, 4301);
    int* in = to_device(emu, values);
    for (const char* kernel : {"rotating_barriers<2u, false>", "rotating_barriers<3u, false>", "rotating_barriers<2u, true>",
                               "rotating_barriers<3u, true>", "swapped_barriers", "pipeline_stages<2u>", "pipeline_stages<3u>"}) {
        SCOPED_TRACE(kernel);
        int* out = zeros<int>(emu, kBlocks * kTileInts);
        ASSERT_NO_THROW(run_corpus(emu, "rotating_barriers.cu", kernel, dim3(kBlocks), dim3(kTileInts), 0, in, out, kTiles));
        EXPECT_EQ(to_host(emu, out, kBlocks * kTileInts), weighted_sums(values));
        EXPECT_TRUE(emu.take_warnings().empty());
    }
}

// The fault a wrong kernel of rotating_barriers.cu stops with (the test fails if it runs clean).
std::optional<KernelFault> fault_of_wrong(Emulator& emu, const char* kernel, std::uint64_t seed)
{
    int* in = to_device(emu, seeded_ints<int>(kBlocks * kTiles * kTileInts, -1000, 1000, seed));
    int* out = zeros<int>(emu, kBlocks * kTileInts);
    auto f = fault_of([&] { run_corpus(emu, "rotating_barriers.cu", kernel, dim3(kBlocks), dim3(kTileInts), 0, in, out, kTiles); });
    if (f) {
        EXPECT_EQ(f->fault.kernel, kernel);
        EXPECT_TRUE(contains(f->what(), triple("block", f->fault.block)) && contains(f->what(), triple("thread", f->fault.thread)));
        EXPECT_TRUE(contains(f->what(), "stage[")) << f->what();
    }
    return f;
}

TEST_P(RotatingBarriers, CpAsyncRingsOfTwoToFourStagesAndCooperativeGroupsCopiesRunWithoutARace)
{
    // async_rings.cu: the same sums as the barriers' kernels.
    const auto values = seeded_ints<int>(kBlocks * kTiles * kTileInts, -1000, 1000, 4306);
    int* in = to_device(emu, values);
    for (const char* kernel : {"primitive_ring<2u, false>", "primitive_ring<3u, false>", "primitive_ring<4u, false>", "cg_double_buffer"}) {
        SCOPED_TRACE(kernel);
        int* out = zeros<int>(emu, kBlocks * kTileInts);
        ASSERT_NO_THROW(run_corpus(emu, "async_rings.cu", kernel, dim3(kBlocks), dim3(kTileInts), 0, in, out, kTiles));
        EXPECT_EQ(to_host(emu, out, kBlocks * kTileInts), weighted_sums(values));
        EXPECT_TRUE(emu.take_warnings().empty());
    }
    // Waiting for one group too few: at t = 0 the two groups of the prologue
    // are the two newest, so none lands and stage 0 was never written.
    int* out = zeros<int>(emu, kBlocks * kTileInts);
    auto f = fault_of([&] { run_corpus(emu, "async_rings.cu", "primitive_ring<3u, true>", dim3(kBlocks), dim3(kTileInts), 0, in, out, kTiles); });
    ASSERT_TRUE(f);
    expect_report(*f, {"primitive_ring<3u, true>", f->fault.block, std::nullopt, project_file(corpus_path("async_rings.cu")),
                       "marker: ring read", {"uninitialised shared memory", "ring["}});
}

TEST_P(RotatingBarriers, OneWaiterPerWarpPassesWhatItSawOnThroughSyncwarp)
{
    const auto values = seeded_ints<int>(kBlocks * kTileInts, -1000, 1000, 4304);
    int* in = to_device(emu, values);
    int* out = zeros<int>(emu, kBlocks * kTileInts);
    // Each thread's cp.async share, and one bulk copy of the whole tile.
    for (const std::string kernel : {"one_waiter_per_warp<true, false>", "one_waiter_per_warp<true, true>"}) {
        SCOPED_TRACE(kernel);
        ASSERT_NO_THROW(run_corpus(emu, "rotating_barriers.cu", kernel.c_str(), dim3(kBlocks), dim3(kTileInts), 0, in, out));
        const auto got = to_host(emu, out, kBlocks * kTileInts);
        for (unsigned b = 0; b < kBlocks; ++b)
            for (unsigned i = 0; i < kTileInts; ++i) EXPECT_EQ(got[b * kTileInts + i], values[b * kTileInts + kTileInts - 1 - i]);
    }
    // Without the __syncwarp(), a lane that did not wait reads a copy ordered
    // by nothing: before it landed (uninitialised, or a bulk copy not filled
    // yet) or after (a race with the thread or the copy engine that wrote it).
    for (const std::string kernel : {"one_waiter_per_warp<false, false>", "one_waiter_per_warp<false, true>"}) {
        SCOPED_TRACE(kernel);
        auto f = fault_of([&] { run_corpus(emu, "rotating_barriers.cu", kernel.c_str(), dim3(kBlocks), dim3(kTileInts), 0, in, out); });
        ASSERT_TRUE(f);
        expect_report(*f, {kernel, f->fault.block, std::nullopt, file(), "marker: waiter's read", {"tile["}});
        EXPECT_TRUE(contains(f->what(), "data race") || contains(f->what(), "uninitialised shared memory") ||
                    contains(f->what(), "a bulk copy has not filled yet"))
            << f->what();
    }
}

TEST_P(RotatingBarriers, ThreadsThatLeaveWithArriveAndDropAreNoLongerAwaited)
{
    // Round 0 over 128 threads, rounds 1..3 over the 64 that stay: v[t] +=
    // v[(t + 1) % active], every thread reading the values of the round's start.
    const auto values = seeded_ints<int>(kBlocks * kTileInts, -1000, 1000, 4305);
    int* in = to_device(emu, values);
    int* out = zeros<int>(emu, kBlocks * kTileInts);
    ASSERT_NO_THROW(run_corpus(emu, "rotating_barriers.cu", "early_leavers", dim3(kBlocks), dim3(kTileInts), 0, in, out, 4u));
    const auto got = to_host(emu, out, kBlocks * kTileInts);
    for (unsigned b = 0; b < kBlocks; ++b) {
        std::vector<int> v(values.begin() + b * kTileInts, values.begin() + (b + 1) * kTileInts);
        for (unsigned r = 0, active = kTileInts; r < 4; ++r, active = 64) {
            const std::vector<int> start = v;
            for (unsigned t = 0; t < active; ++t) v[t] += start[(t + 1) % active];
        }
        for (unsigned t = 0; t < kTileInts; ++t) EXPECT_EQ(got[b * kTileInts + t], t < 64 ? v[t] : 0) << b << ", " << t;
    }
}

TEST_P(RotatingBarriers, AReadBeforeItsBarriersWaitIsReported)
{
    // Thread i reads element 127 - i, which thread 127 - i copies: before the
    // wait nothing orders the two. The read comes before the copy has landed
    // (uninitialised) or after it, unordered (a race): either way at the read,
    // or at the copy where the read came first.
    auto f = fault_of_wrong(emu, "read_before_wait", 4302);
    ASSERT_TRUE(f);
    const std::string message = f->what();
    const unsigned read = marker_line(file(), "marker: early read");
    if (f->fault.line == read) {
        EXPECT_TRUE(contains(message, "uninitialised shared memory") || contains(message, "data race")) << message;
    } else {
        EXPECT_TRUE(contains(message, "data race") && contains(message, std::to_string(read))) << message;
    }
}

TEST_P(RotatingBarriers, ACopyIntoAStageOthersStillReadIsARace)
{
    // The copy of tile t + 1 goes to the stage of tile t - 1 before the wait
    // for tile t, which is what orders the other threads' reads of tile t - 1.
    auto f = fault_of_wrong(emu, "prefetch_before_wait", 4303);
    ASSERT_TRUE(f);
    const std::string message = f->what();
    const unsigned read = marker_line(file(), "marker: late read"), copy = marker_line(file(), "marker: early prefetch");
    EXPECT_TRUE(contains(message, "data race")) << message;
    EXPECT_TRUE(f->fault.line == read || f->fault.line == copy) << message;
    EXPECT_TRUE(contains(message, std::to_string(f->fault.line == read ? copy : read))) << message;
}

}  // namespace
}  // namespace warplab::test
