// Global-memory races (tests/races/global_races.cu): correct kernels run to
// the right result with no fault and no warning, under both schedules; faulty
// ones stop with a report that names both accesses, both threads and blocks,
// the element, and why it is a race. Expected values are derived by hand in
// each test's comment.
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>

#include "corpus/corpus_test.h"
#include "warplab/ptx/kernel_file.h"

namespace warplab::test {
namespace {

constexpr const char* kFile = "tests/races/global_races.cu";

// The module with its kernels' parameters named as the source declares them
// (as warplab names a --file kernel's), so that reports say out[0], not argument 1[0].
const wl::ptx::Module& races_module()
{
    static const std::unique_ptr<wl::ptx::Module> module = [] {
        const wl::ptx::CompiledPtx ptx = wl::ptx::compile_file(project_file(kFile), project_options());
        auto m = std::make_unique<wl::ptx::Module>(wl::ptx::Module::parse(ptx.text, ptx.origin));
        std::ifstream in(project_file(kFile));
        const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        wl::ptx::name_parameters(*m, source);
        return m;
    }();
    return *module;
}

template <class... A> void run(Emulator& emu, const char* kernel, dim3 grid, dim3 block, const A&... args)
{
    wl::ptx::launch(emu, races_module(), kernel, grid, block, 0, args...);
}

unsigned marker(const std::string& name) { return marker_line(project_file(kFile), "marker: " + name); }

void expect_no_warnings(Emulator& emu)
{
    for (const wl::emu::Warning& w : emu.take_warnings()) ADD_FAILURE() << "unexpected warning: " << w.at.message();
}

using CorrectGlobal = CorpusScheduleTest;
INSTANTIATE_TEST_SUITE_P(BothSchedules, CorrectGlobal, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// 1000 values k % 7 (an odd size: 16 blocks of 64, the last holding 40): the
// sum is 142 whole cycles of 0..6 (142 * 21 = 2982) plus 0..5 (15) = 2997,
// exact in floats. Run twice: the last block resets the counter.
TEST_P(CorrectGlobal, ThreadfenceReductionFindsTheLastBlockByItsAtomic)
{
    const unsigned n = 1000, blocks = blocks_for(n, 64);
    std::vector<float> in(n);
    for (unsigned k = 0; k < n; ++k) in[k] = static_cast<float>(k % 7);
    float* d_in = to_device(emu, in);
    float* partial = zeros<float>(emu, blocks);
    float* result = zeros<float>(emu, 1);
    for (int launch = 0; launch < 2; ++launch) {
        ASSERT_NO_THROW(run(emu, "threadfence_reduction<64u>", dim3(blocks), dim3(64), d_in, partial, result, n));
        EXPECT_EQ(to_host(emu, result, 1)[0], 2997.0f);
    }
    expect_no_warnings(emu);
}

// y = 2x + y over 1031 elements (odd) with 3 blocks of 96 threads: each
// thread strides by 288, so a thread touches 3 or 4 elements, each element one thread.
TEST_P(CorrectGlobal, GridStrideLoopOneWriterPerElement)
{
    const int n = 1031;
    const auto x = seeded_floats(n, -4.0f, 4.0f, 11), y = seeded_floats(n, -4.0f, 4.0f, 12);
    float* d_y = to_device(emu, y);
    ASSERT_NO_THROW(run(emu, "saxpy_grid_stride", dim3(3), dim3(96), 2.0f, to_device(emu, x), d_y, n));
    const auto out = to_host(emu, d_y, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * x[i] + y[i]) << i;
    expect_no_warnings(emu);
}

// 5000 seeded bytes into 256 bins by 4 blocks of 128: the bins are the host's count.
TEST_P(CorrectGlobal, AtomicsNeverRaceWithEachOther)
{
    const int n = 5000;
    const auto in = seeded_ints<unsigned char>(n, 0, 255, 13);
    std::vector<unsigned> expected(256, 0);
    for (unsigned char c : in) ++expected[c];
    unsigned* bins = zeros<unsigned>(emu, 256);
    ASSERT_NO_THROW(run(emu, "histogram_atomic", dim3(4), dim3(128), to_device(emu, in), bins, n));
    EXPECT_EQ(to_host(emu, bins, 256), expected);
    expect_no_warnings(emu);
}

// Block 0 writes data[i] = 3 in[i] for 100 elements, fences and raises the
// flag; blocks 1 and 2 wait for it, fence, and write out = data + 1 = 3 in + 1.
// Cooperative, so that a waiting block gives the others their turn.
void run_flag(Emulator& emu, const char* kernel, int* ready)
{
    const int n = 100;
    const auto in = seeded_ints<int>(n, -1000, 1000, 14);
    int* data = zeros<int>(emu, n);
    int* out = zeros<int>(emu, 2 * n);
    emu.options.cooperative = true;
    wl::ptx::launch(emu, races_module(), kernel, dim3(3), dim3(64), 0, to_device(emu, in), data, ready, out, n);
    const auto got = to_host(emu, out, 2 * n);
    for (int k = 0; k < 2 * n; ++k) ASSERT_EQ(got[k], 3 * in[k % n] + 1) << k;
}

TEST_P(CorrectGlobal, FlagWithFencesOnBothSides)
{
    ASSERT_NO_THROW(run_flag(emu, "flag_with_fences", zeros<int>(emu, 1)));
    expect_no_warnings(emu);
}

TEST_P(CorrectGlobal, FlagWithReleaseStoreAndAcquireLoad)
{
    ASSERT_NO_THROW(run_flag(emu, "flag_release_acquire", zeros<int>(emu, 1)));
    expect_no_warnings(emu);
}

// 5 blocks of 32 over n = 150 (the last block holds 22): b[i] = a[(i + 32) % 150]
// = in[(i + 32) % 150]^2, read from the next block after grid.sync().
TEST_P(CorrectGlobal, GridSyncOrdersTheGrid)
{
    const int n = 150;
    const auto in = seeded_ints<int>(n, -100, 100, 15);
    int* a = zeros<int>(emu, n);
    int* b = zeros<int>(emu, n);
    emu.options.cooperative = true;
    ASSERT_NO_THROW(run(emu, "two_phases", dim3(5), dim3(32), to_device(emu, in), a, b, n));
    const auto got = to_host(emu, b, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], in[(i + 32) % n] * in[(i + 32) % n]) << i;
    expect_no_warnings(emu);
}

// Two launches, in and out swapped: out[i] = in[(i + 64) % 256], then back:
// in[i] = out[(i + 64) % 256] = original[(i + 128) % 256]. The second launch reads
// what other blocks of the first wrote: the launch boundary orders it.
TEST_P(CorrectGlobal, TheLaunchBoundaryOrdersEverything)
{
    const int n = 256;
    std::vector<int> original(n);
    std::iota(original.begin(), original.end(), 0);
    int* d_a = to_device(emu, original);
    int* d_b = zeros<int>(emu, n);
    ASSERT_NO_THROW(run(emu, "shift_by_block", dim3(4), dim3(64), d_a, d_b, n));
    ASSERT_NO_THROW(run(emu, "shift_by_block", dim3(4), dim3(64), d_b, d_a, n));
    const auto got = to_host(emu, d_a, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], (i + 128) % n) << i;
    expect_no_warnings(emu);
}

// 3 blocks of 64 reverse their pieces: data[64b + t] = 64b + 63 - t.
TEST_P(CorrectGlobal, SyncthreadsOrdersABlocksGlobalAccesses)
{
    std::vector<int> v(192);
    std::iota(v.begin(), v.end(), 0);
    int* d = to_device(emu, v);
    ASSERT_NO_THROW(run(emu, "reverse_in_block", dim3(3), dim3(64), d));
    const auto got = to_host(emu, d, 192);
    for (int i = 0; i < 192; ++i) ASSERT_EQ(got[i], i / 64 * 64 + 63 - i % 64) << i;
    expect_no_warnings(emu);
}

// Threads of 4 blocks of 64 set one flag to 1 where work[i] != 0 (every
// third element of 250): plain stores of the same value by threads of
// different warps and blocks. A warning in the memory model's terms, not a fault.
TEST_P(CorrectGlobal, SameValueFlagIsAWarningNotAFault)
{
    const int n = 250;
    std::vector<int> work(n, 0);
    for (int i = 0; i < n; i += 3) work[i] = 1;
    int* not_done = zeros<int>(emu, 1);
    ASSERT_NO_THROW(run(emu, "set_not_done", dim3(4), dim3(64), to_device(emu, work), not_done, n));
    EXPECT_EQ(to_host(emu, not_done, 1)[0], 1);
    const auto warnings = emu.take_warnings();
    ASSERT_FALSE(warnings.empty());
    for (const wl::emu::Warning& w : warnings) {
        SCOPED_TRACE(w.at.message());
        EXPECT_EQ(w.at.line, marker("same-value flag"));
        EXPECT_TRUE(contains(w.at.what, "plain stores of the same value to one element of not_done"));
        EXPECT_TRUE(contains(w.at.what, "CUDA's memory model"));
        EXPECT_TRUE(contains(w.at.what, "atomicExch"));
    }
}

// Two blocks of one warp: each warp's 32 lanes store 7 to the block's element.
// A warp's store is checked and lands lane by lane (block 0, watched, one lane
// at a time; block 1 as one batch), so each lane after the first finds 7 there
// already and its own 7 changes nothing: no warning. out = {7, 7}.
TEST_P(CorrectGlobal, LanesStoringOneValueToOneElement)
{
    int* out = zeros<int>(emu, 2);
    ASSERT_NO_THROW(run(emu, "store_one_element", dim3(2), dim3(32), out, 1));
    EXPECT_EQ(to_host(emu, out, 2), (std::vector<int>{7, 7}));
    expect_no_warnings(emu);
}

// The same with each lane storing its thread index: in each block one lane's
// value lands, one of 0..31, and the block is warned at the store that the
// lanes of one store instruction write different values. Not a fault.
TEST_P(CorrectGlobal, LanesStoringDifferentValuesToOneElement)
{
    int* out = zeros<int>(emu, 2);
    ASSERT_NO_THROW(run(emu, "store_one_element", dim3(2), dim3(32), out, 0));
    for (const int landed : to_host(emu, out, 2)) {
        EXPECT_GE(landed, 0);
        EXPECT_LT(landed, 32);
    }
    const auto warnings = emu.take_warnings();
    ASSERT_FALSE(warnings.empty());
    for (const wl::emu::Warning& w : warnings) {
        SCOPED_TRACE(w.at.message());
        EXPECT_EQ(w.at.line, marker("one element stored"));
        EXPECT_TRUE(contains(w.at.what, "lanes of one store instruction write different values to out["));
    }
}

using RacyGlobal = CorpusScheduleTest;
INSTANTIATE_TEST_SUITE_P(BothSchedules, RacyGlobal, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// One block of 256 threads, eight warps. Warps run one after another here:
// warp 0's lane 0 reads and writes out[0]; warp 1's lane 0 (thread 32) then
// reads it, with no barrier since: a race, reported at thread 32 against
// thread 0's write on the same line.
TEST_P(RacyGlobal, EightWarpsAddingToOneWordWithAPlainAdd)
{
    float* out = zeros<float>(emu, 1);
    const auto f = fault_of([&] {
        run(emu, "warp_sums_plain_add", dim3(1), dim3(256), to_device(emu, std::vector<float>(256, 1.0f)), out);
    });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"warp_sums_plain_add", uint3{0, 0, 0}, uint3{32, 0, 0}, project_file(kFile),
                                    "marker: plain add",
                                    {"data race on global memory: out[0]", "is read here and written by thread (0,0,0) of this block on the same line",
                                     "no __syncthreads()"}});
}

// 4 blocks of 32 over n = 128, one host thread (blocks in order): block 0's
// thread t writes out[t] and reads out[32 + t], which block 1's thread t then
// writes: block 1 faults at the write, naming block 0's read. Neither block
// waits for the other, and nothing orders them.
TEST_P(RacyGlobal, ABlockReadingItsNeighboursOutput)
{
    const int n = 128;
    int* out = zeros<int>(emu, n);
    int* sums = zeros<int>(emu, n);
    emu.options.workers = 1;
    const auto f = fault_of([&] {
        run(emu, "read_neighbour_output", dim3(4), dim3(32), to_device(emu, seeded_ints<int>(n, 0, 9, 16)), out,
            sums, n);
    });
    ASSERT_TRUE(f);
    const unsigned t = f->fault.thread.x;
    expect_report(*f, ExpectedFault{"read_neighbour_output", uint3{1, 0, 0}, std::nullopt, project_file(kFile),
                                    "marker: neighbour write",
                                    {"data race on global memory: out[" + std::to_string(32 + t) + "]",
                                     "is written here and read by thread (" + std::to_string(t) + ",0,0) of block (0,0,0) at ",
                                     "global_races.cu:" + std::to_string(marker("neighbour read")),
                                     "Blocks are ordered only through memory", "__threadfence()"}});
}

// The same with one host thread per core: which block meets the other's
// access first depends on timing, but the race is always found.
TEST_P(RacyGlobal, ABlockReadingItsNeighboursOutputOnSeveralHostThreads)
{
    const int n = 128;
    const auto f = fault_of([&] {
        run(emu, "read_neighbour_output", dim3(4), dim3(32), to_device(emu, seeded_ints<int>(n, 0, 9, 17)),
            zeros<int>(emu, n), zeros<int>(emu, n), n);
    });
    ASSERT_TRUE(f);
    EXPECT_TRUE(contains(f->what(), "data race on global memory: out[")) << f->what();
    EXPECT_TRUE(contains(f->what(), "Blocks are ordered only through memory")) << f->what();
}

// Block 0 writes data[0..99] (threads t and t + 64) and raises the flag with no
// fence: block 1 waits for the flag and fences, but block 0 never released its
// writes, so block 1's first read of data[i] races with block 0's write of it.
TEST_P(RacyGlobal, AFlagRaisedWithoutAFence)
{
    const auto f = fault_of([&] { run_flag(emu, "flag_without_fence", zeros<int>(emu, 1)); });
    ASSERT_TRUE(f);
    const unsigned t = f->fault.thread.x;
    expect_report(*f, ExpectedFault{"flag_without_fence", uint3{1, 0, 0}, std::nullopt, project_file(kFile),
                                    "marker: flagged read",
                                    {"data race on global memory: data[" + std::to_string(t) + "]",
                                     "is read here and written by thread (" + std::to_string(t) + ",0,0) of block (0,0,0) at ",
                                     "global_races.cu:" + std::to_string(marker("unfenced write"))}});
}

// One block of 64 without its __syncthreads(): warp 0 runs first and writes
// data[63 - t] for its lanes t = 0..31, i.e. data[32..63]; warp 1's lane
// 32 + k then reads data[32 + k], written by thread 31 - k: x + other = 63.
TEST_P(RacyGlobal, ThreadsOfABlockWithoutSyncthreads)
{
    std::vector<int> v(64);
    std::iota(v.begin(), v.end(), 0);
    int* d = to_device(emu, v);
    const auto f = fault_of([&] { run(emu, "reverse_in_block_unsynced", dim3(1), dim3(64), d); });
    ASSERT_TRUE(f);
    const unsigned x = f->fault.thread.x;
    ASSERT_GE(x, 32u);
    expect_report(*f, ExpectedFault{"reverse_in_block_unsynced", uint3{0, 0, 0}, std::nullopt, project_file(kFile),
                                    "marker: unsynced read",
                                    {"data race on global memory: data[" + std::to_string(x) + "]",
                                     "is read here and written by thread (" + std::to_string(63 - x) + ",0,0) of this block at ",
                                     "global_races.cu:" + std::to_string(marker("unsynced write"))}});
}

// One warp of 32: every lane reads word[0], then lane 0 writes it. Under the
// independent schedule nothing orders the other lanes' reads before lane 0's
// write: a race at thread 0, naming the lane whose read the word kept last,
// not lane 0 itself (a shadow that kept one read of the segment, lane 0's,
// would see none). In lockstep
// the warp's rounds order the reads before the write: every lane stores 7,
// and word[0] becomes 8.
TEST_P(RacyGlobal, AWarpsBroadcastReadThenOneLanesWrite)
{
    int* word = to_device(emu, std::vector<int>{7});
    int* out = zeros<int>(emu, 32);
    if (GetParam() == Schedule::Lockstep) {
        run(emu, "broadcast_read_then_write", dim3(1), dim3(32), word, out);
        EXPECT_EQ(to_host(emu, out, 32), std::vector<int>(32, 7));
        EXPECT_EQ(to_host(emu, word, 1), std::vector<int>{8});
        expect_no_warnings(emu);
        return;
    }
    const auto f = fault_of([&] { run(emu, "broadcast_read_then_write", dim3(1), dim3(32), word, out); });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"broadcast_read_then_write", uint3{0, 0, 0}, uint3{0, 0, 0}, project_file(kFile),
                                    "marker: write after broadcast",
                                    {"data race on global memory: word[0]", "is written here and read by thread (",
                                     ",0,0) of this block at ", "global_races.cu:" + std::to_string(marker("broadcast read"))}});
    EXPECT_FALSE(contains(f->what(), "read by thread (0,0,0)")) << f->what();
}

}  // namespace
}  // namespace warplab::test
