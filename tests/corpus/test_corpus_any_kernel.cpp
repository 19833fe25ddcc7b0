// Kernels as public code writes them: warpSize, the special registers,
// cooperative-groups tiles of every documented size, CUDA's own rules on
// races, and the instruction budget that ends an endless loop.
#include <numeric>

#include "corpus/corpus_test.h"

namespace warplab::test {
namespace {

using Any = CorpusScheduleTest;
INSTANTIATE_TEST_SUITE_P(BothSchedules, Any, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- warpSize and the special registers ----

TEST_P(Any, WarpSizeIs32)
{
    int* out = zeros<int>(emu, 33);
    ASSERT_NO_THROW(run_corpus(emu, "warp_size.cu", "warp_width", dim3(1), dim3(33), 0, out));
    for (int v : to_host(emu, out, 33)) EXPECT_EQ(v, 32);
}

TEST_P(Any, BlockSumsWrittenWithWarpSize)
{
    // 257 values in blocks of 64: blocks 0..3 hold 64 values, block 4 one (index 256).
    const auto values = seeded_ints<int>(257, -500, 500, 2601);
    int* in = to_device(emu, values);
    int* out = zeros<int>(emu, 5);
    ASSERT_NO_THROW(run_corpus(emu, "warp_size.cu", "block_sum_warpsize", dim3(5), dim3(64), 0, in, 257u, out));
    const auto got = to_host(emu, out, 5);
    for (unsigned b = 0; b < 5; ++b) {
        const auto first = values.begin() + 64 * b, last = values.begin() + std::min<std::size_t>(257, 64 * (b + 1));
        EXPECT_EQ(got[b], std::accumulate(first, last, 0)) << "block " << b;
    }
}

TEST_P(Any, LaneMasksAndSharedSizeAsPtxDefinesThem)
{
    // 40 threads: lane l of warp 0 and lane l - 32 of warp 1. lanemask_lt =
    // (1 << l) - 1, le = (2 << l) - 1 (all ones at 31), eq = 1 << l, gt = ~le,
    // ge = ~lt; the launch's 160 dynamic bytes; an SM id below the SM count.
    unsigned* out = zeros<unsigned>(emu, 8 * 40);
    ASSERT_NO_THROW(run_corpus(emu, "warp_size.cu", "special_registers", dim3(1), dim3(40), 160, out));
    const auto got = to_host(emu, out, 8 * 40);
    for (unsigned t = 0; t < 40; ++t) {
        const unsigned l = t % 32;
        const unsigned lt = (1u << l) - 1, le = l == 31 ? ~0u : (2u << l) - 1;
        SCOPED_TRACE("thread " + std::to_string(t));
        EXPECT_EQ(got[8 * t + 0], lt);
        EXPECT_EQ(got[8 * t + 1], le);
        EXPECT_EQ(got[8 * t + 2], 1u << l);
        EXPECT_EQ(got[8 * t + 3], ~le);
        EXPECT_EQ(got[8 * t + 4], ~lt);
        EXPECT_EQ(got[8 * t + 5], 160u);
        EXPECT_EQ(got[8 * t + 6], 1u);
        EXPECT_EQ(got[8 * t + 7], t);
    }
}

// ---- cooperative-groups tiles, 4 to 128 threads ----

TEST_P(Any, TileSumsOfEveryWidth)
{
    // 2 blocks of 256: tile k sums inputs k*Tile .. (k+1)*Tile - 1.
    const auto values = seeded_ints<int>(512, -1000, 1000, 2602);
    int* in = to_device(emu, values);
    for (unsigned tile : {4u, 16u, 64u, 128u}) {
        SCOPED_TRACE("tile " + std::to_string(tile));
        int* out = zeros<int>(emu, 512 / tile);
        const std::string kernel = "tile_sums<" + std::to_string(tile) + "u>";
        ASSERT_NO_THROW(run_corpus(emu, "cg_wide_tiles.cu", kernel.c_str(), dim3(2), dim3(256), 0, in, out));
        const auto got = to_host(emu, out, 512 / tile);
        for (unsigned k = 0; k < 512 / tile; ++k)
            EXPECT_EQ(got[k], std::accumulate(values.begin() + k * tile, values.begin() + (k + 1) * tile, 0)) << k;
    }
}

TEST_P(Any, AWideTileReadBeforeItsSyncIsARace)
{
    const auto values = seeded_ints<int>(256, 0, 9, 2603);
    int* in = to_device(emu, values);
    int* out = zeros<int>(emu, 4);
    auto f = fault_of([&] { run_corpus(emu, "cg_wide_tiles.cu", "tile_sums_unsynced", dim3(1), dim3(256), 0, in, out); });
    ASSERT_TRUE(f) << "the unsynchronised tile read ran clean";
    EXPECT_TRUE(contains(f->what(), "data race")) << f->what();
    EXPECT_TRUE(contains(f->what(), "partial[")) << f->what();
}

// ---- races as CUDA defines them ----

TEST_P(Any, LanesOfOneStoreWritingTheSameValueDoNotRace)
{
    // One warp: all 32 lanes store in[0] to mean[0]; every lane reads it back.
    float* in = to_device(emu, std::vector<float>{2.5f});
    float* out = zeros<float>(emu, 32);
    ASSERT_NO_THROW(run_corpus(emu, "cuda_races.cu", "same_value_store", dim3(1), dim3(32), 0, in, out));
    for (float v : to_host(emu, out, 32)) EXPECT_EQ(v, 2.5f);
    EXPECT_TRUE(emu.take_warnings().empty());
}

TEST_P(Any, TwoWarpsStoringTheSameValueWarnOnce)
{
    // The Guide's one-lands rule is about one warp instruction; warps 0 and 1
    // are two, so the memory model calls their stores a race. Both write the
    // same bits, so the word is the same in either order: a warning, as in
    // global memory (BFS's flag), at the store; every thread reads 2.5.
    float* in = to_device(emu, std::vector<float>{2.5f});
    float* out = zeros<float>(emu, 64);
    ASSERT_NO_THROW(run_corpus(emu, "cuda_races.cu", "same_value_store", dim3(1), dim3(64), 0, in, out));
    for (float v : to_host(emu, out, 64)) EXPECT_EQ(v, 2.5f);
    const auto warnings = emu.take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0].at.what, "plain stores of the same value to one element of mean")) << warnings[0].at.what;
    EXPECT_EQ(warnings[0].at.line, marker_line(project_file(corpus_path("cuda_races.cu")), "marker: same value"));
}

TEST_P(Any, LanesStoringDifferentValuesLeaveOneAndAWarning)
{
    // Lanes 0..31 store their index to last[0]: one of them lands. Lockstep
    // runs the lanes of an access in lane order, so lane 31 stores last;
    // independent, the seed's order picks a lane.
    int* out = zeros<int>(emu, 1);
    ASSERT_NO_THROW(run_corpus(emu, "cuda_races.cu", "lane_value_store", dim3(1), dim3(32), 0, out));
    const int landed = to_host(emu, out, 1)[0];
    EXPECT_GE(landed, 0);
    EXPECT_LT(landed, 32);
    if (GetParam() == Schedule::Lockstep) EXPECT_EQ(landed, 31);
    const auto warnings = emu.take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0].at.what, "different values to last[0]")) << warnings[0].at.what;
    EXPECT_EQ(warnings[0].at.line, marker_line(project_file(corpus_path("cuda_races.cu")), "marker: lane value"));
    EXPECT_EQ(warnings[0].count, 31u);  // 31 lanes found an earlier lane's different value
}

TEST_P(Any, TheGuidesAtomicCasLoopRunsWithoutAWarning)
{
    // 96 threads add in[i]; small integers in floats, so every order sums exactly.
    // The loop's first plain read races with the other threads' atomicCAS, but a
    // stale value only fails the compare and the loop retries: nothing to warn of.
    const auto ints = seeded_ints<int>(96, -50, 50, 2604);
    std::vector<float> values(ints.begin(), ints.end());
    float* in = to_device(emu, values);
    float* out = zeros<float>(emu, 1);
    ASSERT_NO_THROW(run_corpus(emu, "cuda_races.cu", "cas_loop_sum", dim3(1), dim3(96), 0, in, out));
    EXPECT_EQ(to_host(emu, out, 1)[0], static_cast<float>(std::accumulate(ints.begin(), ints.end(), 0)));
    EXPECT_TRUE(emu.take_warnings().empty());
}

TEST_P(Any, APlainReadBesideAtomicAddsIsWarnedOf)
{
    // The same 96 threads, but each reads the accumulator plainly after its
    // atomicAdd, while other threads still add: no CAS checks that read, so it
    // may see any partial sum. One site, the read, whether it or an atomic
    // came second; the total stays right (the barrier orders thread 0's read).
    const auto ints = seeded_ints<int>(96, -50, 50, 2605);
    std::vector<float> values(ints.begin(), ints.end());
    float* in = to_device(emu, values);
    float* out = zeros<float>(emu, 1);
    float* seen = zeros<float>(emu, 96);
    ASSERT_NO_THROW(run_corpus(emu, "cuda_races.cu", "peek_sum", dim3(1), dim3(96), 0, in, out, seen));
    EXPECT_EQ(to_host(emu, out, 1)[0], static_cast<float>(std::accumulate(ints.begin(), ints.end(), 0)));
    const auto warnings = emu.take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0].at.what, "races with atomics")) << warnings[0].at.what;
    EXPECT_EQ(warnings[0].at.line, marker_line(project_file(corpus_path("cuda_races.cu")), "marker: peek"));
}

TEST_P(Any, ThreadsThatReturnBeforeABarrierLetTheOthersPass)
{
    // n = 100 of 128 threads: threads 100..127 return first. out[i] = in[i] *
    // in[0] for i < 100, past the barrier; out[100..127] stay 0.
    const int n = 100;
    const auto values = seeded_ints<int>(n, -9, 9, 2606);
    int* in = to_device(emu, values);
    int* out = zeros<int>(emu, 128);
    ASSERT_NO_THROW(run_corpus(emu, "exited_threads.cu", "scale_by_first", dim3(1), dim3(128), 0, in, out, n));
    const auto got = to_host(emu, out, 128);
    for (int i = 0; i < 128; ++i) EXPECT_EQ(got[i], i < n ? values[i] * values[0] : 0) << "out[" << i << "]";
    const auto warnings = emu.take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0].at.what, "exited before this __syncthreads()")) << warnings[0].at.what;
    EXPECT_EQ(warnings[0].at.line, marker_line(project_file(corpus_path("exited_threads.cu")), "marker: barrier after return"));
}

TEST_P(Any, LanesThatReturnBeforeASyncwarpLetTheOthersPass)
{
    // n = 100: warp 3's lanes 4..31 (threads 100..127) return; its lanes 0..3
    // swap pairs (100 is even, so 99's partner 98 is in range): out[i] = in[i ^ 1].
    const int n = 100;
    const auto values = seeded_ints<int>(n, -1000, 1000, 2607);
    int* in = to_device(emu, values);
    int* out = zeros<int>(emu, n);
    ASSERT_NO_THROW(run_corpus(emu, "exited_threads.cu", "swap_pairs", dim3(1), dim3(128), 0, in, out, n));
    const auto got = to_host(emu, out, n);
    for (int i = 0; i < n; ++i) EXPECT_EQ(got[i], values[i ^ 1]) << "out[" << i << "]";
    EXPECT_TRUE(emu.take_warnings().empty());
}

TEST_P(Any, WideReadsOfPartlyWrittenMemoryAreNoFault)
{
    // largest_pair: values[i] = (i * 37) % 61 for 64 threads; the largest is
    // 60, at i = 28 (28 * 37 = 1036 = 16 * 61 + 60), the only i below 64 with it.
    std::vector<int> keys(64);
    std::vector<double> values(64);
    for (int i = 0; i < 64; ++i) keys[i] = i, values[i] = (i * 37) % 61;
    int* key = zeros<int>(emu, 1);
    ASSERT_NO_THROW(run_corpus(emu, "partly_written.cu", "largest_pair", dim3(1), dim3(64), 0, to_device(emu, keys),
                               to_device(emu, values), key));
    EXPECT_EQ(to_host(emu, key, 1)[0], 28);
    // point_sum: coordinates 0, 1, ..., 191: their sum is 191 * 192 / 2 = 18336.
    std::vector<float> xyz(192);
    for (int i = 0; i < 192; ++i) xyz[i] = static_cast<float>(i);
    float* sum = zeros<float>(emu, 1);
    ASSERT_NO_THROW(run_corpus(emu, "partly_written.cu", "point_sum", dim3(1), dim3(64), 0, to_device(emu, xyz), sum));
    EXPECT_EQ(to_host(emu, sum, 1)[0], 18336.0f);
    // exchanged_count: each of 64 threads adds 1 to the counter thread 0 set to 0.
    int* count = zeros<int>(emu, 1);
    ASSERT_NO_THROW(run_corpus(emu, "partly_written.cu", "exchanged_count", dim3(1), dim3(64), 0, count));
    EXPECT_EQ(to_host(emu, count, 1)[0], 64);
}

TEST_P(Any, AWideReadOfNothingWrittenIsStillAFault)
{
    float* xyzw = to_device(emu, std::vector<float>{1, 2, 3, 4});
    float* out = zeros<float>(emu, 1);
    auto f = fault_of([&] { run_corpus(emu, "partly_written.cu", "unwritten_point", dim3(1), dim3(64), 0, xyzw, 1u, out); });
    ASSERT_TRUE(f);
    expect_report(*f, {"unwritten_point", uint3{0, 0, 0}, uint3{1, 0, 0}, project_file(corpus_path("partly_written.cu")),
                       "marker: unwritten point", {"uninitialised shared memory"}});
}

TEST_P(Any, APlainReadModifyWriteIsStillARace)
{
    float* in = to_device(emu, std::vector<float>(96, 1.0f));
    float* out = zeros<float>(emu, 1);
    auto f = fault_of([&] { run_corpus(emu, "cuda_races.cu", "plain_sum", dim3(1), dim3(96), 0, in, out); });
    ASSERT_TRUE(f);
    expect_report(*f, {"plain_sum", uint3{0, 0, 0}, std::nullopt, project_file(corpus_path("cuda_races.cu")),
                       "marker: plain add", {"data race", "acc"}});
}

// ---- every run ends ----

TEST_P(Any, ALoopWithinTheBudgetRuns)
{
    // 1000 rounds of at least 2 instructions (the add and the branch): at
    // least 2000 steps, at most 1000 * 64 for any body this short.
    unsigned* out = zeros<unsigned>(emu, 33);
    emu.options.max_instructions = 64'000;
    ASSERT_NO_THROW(run_corpus(emu, "endless_loop.cu", "counted_loop", dim3(1), dim3(33), 0, 1000u, out));
    const auto got = to_host(emu, out, 33);
    for (unsigned t = 0; t < 33; ++t) {
        unsigned s = 0;
        for (unsigned k = 0; k < 1000; ++k) s += k ^ t;
        EXPECT_EQ(got[t], s);
    }
    emu.options.max_instructions = 1999;  // below the 2000 it must take
    EXPECT_TRUE(fault_of([&] { run_corpus(emu, "endless_loop.cu", "counted_loop", dim3(1), dim3(33), 0, 1000u, out); }));
}

TEST_P(Any, AnEndlessLoopStopsAtTheBudget)
{
    int* out = zeros<int>(emu, 64);
    emu.options.max_instructions = 100'000;
    auto f = fault_of([&] { run_corpus(emu, "endless_loop.cu", "endless_loop", dim3(3), dim3(64), 0, out); });
    ASSERT_TRUE(f);
    expect_report(*f, {"endless_loop", uint3{0, 0, 0}, std::nullopt, project_file(corpus_path("endless_loop.cu")),
                       "marker: endless", {"did not finish within 100000 instructions per thread", "endless loop?"}});
}

TEST_P(Any, ASpinWaitOnAnotherWarpEnds)
{
    int* out = zeros<int>(emu, 1);
    emu.options.max_instructions = 1'000'000;
    ASSERT_NO_THROW(run_corpus(emu, "endless_loop.cu", "spin_wait", dim3(1), dim3(64), 0, out));
    EXPECT_EQ(to_host(emu, out, 1)[0], 42);
}

}  // namespace
}  // namespace warplab::test

namespace warplab::test {
namespace {

// ---- libcu++'s asynchronous copies ----

TEST_P(Any, MemcpyAsyncWithABarrierAndWithAPipeline)
{
    // 3 blocks of 128: out[b] = the sum of in[128 b .. 128 b + 127].
    const auto values = seeded_ints<int>(3 * 128, -1000, 1000, 2605);
    int* in = to_device(emu, values);
    for (const char* kernel : {"barrier_sum", "pipeline_sum"}) {
        SCOPED_TRACE(kernel);
        int* out = zeros<int>(emu, 3);
        ASSERT_NO_THROW(run_corpus(emu, "async_copies.cu", kernel, dim3(3), dim3(128), 0, in, out));
        const auto got = to_host(emu, out, 3);
        for (unsigned b = 0; b < 3; ++b)
            EXPECT_EQ(got[b], std::accumulate(values.begin() + 128 * b, values.begin() + 128 * (b + 1), 0)) << b;
    }
}

// cp.async through the pipeline primitives: a copy lands when its thread
// waits for its group. double_buffer_sum is right (3 blocks of 3 tiles of 128:
// out[b] = the sum of in[384 b .. 384 b + 383]); the wrong kernels read
// before their copy has landed, and each is reported where it reads.
TEST_P(Any, CpAsyncLandsWhenItsGroupIsWaitedFor)
{
    const auto values = seeded_ints<int>(3 * 3 * 128, -1000, 1000, 2611);
    int* in = to_device(emu, values);
    int* sums = zeros<int>(emu, 3);
    ASSERT_NO_THROW(run_corpus(emu, "async_copies.cu", "double_buffer_sum", dim3(3), dim3(128), 0, in, sums, 3u));
    const auto got = to_host(emu, sums, 3);
    for (unsigned b = 0; b < 3; ++b)
        EXPECT_EQ(got[b], std::accumulate(values.begin() + 384 * b, values.begin() + 384 * (b + 1), 0)) << b;

    const std::string file = project_file(corpus_path("async_copies.cu"));
    int* out = zeros<int>(emu, 128);
    // wait_prior(1) lands stage 0 only: stage 1 was never written.
    auto early = fault_of([&] { run_corpus(emu, "async_copies.cu", "early_stage_read", dim3(1), dim3(128), 0, in, out, 2u); });
    ASSERT_TRUE(early);
    expect_report(*early, {"early_stage_read", {0, 0, 0}, std::nullopt, file, "marker: early stage", {"uninitialised", "stage"}});
    // No wait at all: __syncthreads() does not land the copies.
    auto unwaited = fault_of([&] { run_corpus(emu, "async_copies.cu", "unwaited_read", dim3(1), dim3(128), 0, in, out); });
    ASSERT_TRUE(unwaited);
    expect_report(*unwaited, {"unwaited_read", {0, 0, 0}, std::nullopt, file, "marker: unwaited", {"uninitialised", "tile"}});
    // The tile held zeros, so the early reads see old values; the copies land
    // at the late wait, unordered with other threads' reads: a data race
    // between the read and the copy, reported at whichever came second.
    auto stale = fault_of([&] { run_corpus(emu, "async_copies.cu", "stale_read", dim3(1), dim3(128), 0, in, out); });
    ASSERT_TRUE(stale);
    const unsigned read = marker_line(file, "marker: stale"), copy = marker_line(file, "marker: late copy");
    EXPECT_TRUE(stale->fault.line == read || stale->fault.line == copy) << stale->what();
    EXPECT_TRUE(contains(stale->what(), "data race")) << stale->what();
    EXPECT_TRUE(contains(stale->what(), std::to_string(stale->fault.line == read ? copy : read))) << stale->what();
}

TEST_P(Any, AFaultInsideTheToolkitNamesTheCallerAndTheHeaderLine)
{
    // The input is one tile short: the copy of block 2's tile reads past the
    // end of `in`, inside libcu++; the fault names the user's call and the header.
    const auto values = seeded_ints<int>(2 * 128, 0, 9, 2606);
    int* in = to_device(emu, values);
    int* out = zeros<int>(emu, 3);
    auto f = fault_of([&] { run_corpus(emu, "async_copies.cu", "barrier_sum", dim3(3), dim3(128), 0, in, out); });
    ASSERT_TRUE(f);
    expect_report(*f, {"barrier_sum", uint3{2, 0, 0}, std::nullopt, project_file(corpus_path("async_copies.cu")),
                       "marker: barrier copy", {"out-of-bounds", "; inside the toolkit at ", "__memcpy_async/"}});
}

}  // namespace
}  // namespace warplab::test

namespace warplab::test {
namespace {

// ---- dynamic shared memory: the extern array and the bytes the launch gave ----

TEST_P(Any, AFaultInDynamicSharedMemoryNamesTheExternArrayAndItsBytes)
{
    // reverse_segments stores segment[t] for t < 64; 63 floats = 252 bytes leave
    // thread 63 past the end, and 0 bytes leave every thread past it.
    float* in = to_device(emu, seeded_floats(64, -1, 1, 2607));
    float* out = emu.alloc<float>(64);
    const std::string file = project_file(corpus_path("dynamic_shared.cu"));
    auto short_by_one = fault_of([&] { run_corpus(emu, "dynamic_shared.cu", "reverse_segments", dim3(1), dim3(64), 252, in, out); });
    ASSERT_TRUE(short_by_one);
    expect_report(*short_by_one, {"reverse_segments", uint3{0, 0, 0}, uint3{63, 0, 0}, file, "FAULT(dynamic_past_end)",
                                  {"segment[63] is outside its 63 elements", "extern __shared__ segment[]: the launch gave 252 bytes"}});
    auto none = fault_of([&] { run_corpus(emu, "dynamic_shared.cu", "reverse_segments", dim3(1), dim3(64), 0, in, out); });
    ASSERT_TRUE(none);
    expect_report(*none, {"reverse_segments", uint3{0, 0, 0}, std::nullopt, file, "FAULT(dynamic_past_end)",
                          {"of extern __shared__ segment[], but the launch gave 0 bytes of dynamic shared memory"}});
    EXPECT_FALSE(contains(none->what(), "declares no shared memory"));
}

}  // namespace
}  // namespace warplab::test
