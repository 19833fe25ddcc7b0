// Everyday kernels as a student writes them in plain CUDA (tests/corpus/),
// run through the PTX interpreter: each result against a CPU reference on
// seeded inputs of odd sizes over many blocks, and the wrong versions caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "corpus/corpus_test.h"

namespace warplab::test {
namespace {

using namespace corpus;

// ---- histogram ----

std::vector<unsigned char> seeded_bytes(std::size_t n, std::uint64_t seed)
{
    const auto ints = seeded_ints<unsigned>(n, 0, 255, seed);
    return std::vector<unsigned char>(ints.begin(), ints.end());
}

std::vector<unsigned> cpu_histogram(const std::vector<unsigned char>& bytes)
{
    std::vector<unsigned> bins(kBins, 0);
    for (unsigned char b : bytes) ++bins[b];
    return bins;
}

class Histogram : public CorpusScheduleTest {};

TEST_P(Histogram, WithSharedAtomicsCountsEveryByte)
{
    // 7 blocks of 192 threads stride over the input: every block's private
    // histogram sees a share, their sum is the whole.
    for (std::size_t n : odd_sizes()) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto bytes = seeded_bytes(n, 1000 + n);
        unsigned char* in = to_device(emu, bytes);
        unsigned* bins = zeros<unsigned>(emu, kBins);
        ASSERT_NO_THROW(run_corpus(emu, "histogram.cu", "histogram_shared_atomics", dim3(7), dim3(192), 0, in,
                                   static_cast<unsigned>(n), bins));
        EXPECT_EQ(to_host(emu, bins, kBins), cpu_histogram(bytes));
    }
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, Histogram, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

class HistogramRacy : public CorpusScheduleTest {};

TEST_P(HistogramRacy, PlainIncrementOfASharedBinIsADataRace)
{
    // 4096 random bytes over one block of 256 threads (8 warps), 16 bytes
    // each: threads of different warps meet at the same bin in the same
    // barrier interval, and `local[v] += 1` is a load and a store.
    const auto bytes = seeded_bytes(4096, 7);
    unsigned char* in = to_device(emu, bytes);
    unsigned* bins = zeros<unsigned>(emu, kBins);
    auto f = fault_of([&] {
        run_corpus(emu, "histogram_racy.cu", "histogram_racy", dim3(1), dim3(256), 0, in, 4096u, bins);
    });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"histogram_racy", {0, 0, 0}, std::nullopt, project_file(corpus_path("histogram_racy.cu")),
                                    "RACE(histogram_increment)", {"data race", "local["}});
    EXPECT_EQ(f->fault.file, corpus_path("histogram_racy.cu"));
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, HistogramRacy, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- Hillis-Steele scan ----

// Inclusive prefix sums restarted at every block of kScanBlock elements.
std::vector<int> cpu_segmented_scan(const std::vector<int>& in)
{
    std::vector<int> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] + (i % kScanBlock ? out[i - 1] : 0);
    return out;
}

class ScanDoubleBuffered : public CorpusScheduleTest {};

TEST_P(ScanDoubleBuffered, GivesEachBlocksPrefixSumsWithoutFault)
{
    for (std::size_t n : odd_sizes()) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto values = seeded_ints<int>(n, -1000, 1000, 2000 + n);
        int* in = to_device(emu, values);
        int* out = emu.alloc<int>(n);
        ASSERT_NO_THROW(run_corpus(emu, "scan_double_buffered.cu", "scan_double_buffered", dim3(blocks_for(n, kScanBlock)),
                                   dim3(kScanBlock), 0, in, out, static_cast<unsigned>(n)));
        EXPECT_EQ(to_host(emu, out, n), cpu_segmented_scan(values));
    }
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, ScanDoubleBuffered, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

class ScanInPlace : public CorpusScheduleTest {};

TEST_P(ScanInPlace, IsADataRaceAtTheUpdate)
{
    // At offset d, thread t reads x[t - d] while thread t - d adds to it in
    // the same barrier interval. Under lockstep the lanes of one warp all load
    // before they store, but warp 0 still updates x[31] before warp 1's
    // thread 32 reads it at d = 1: a race under both schedules.
    const auto values = seeded_ints<int>(kScanBlock, -1000, 1000, 3);
    int* in = to_device(emu, values);
    int* out = emu.alloc<int>(kScanBlock);
    auto f = fault_of([&] {
        run_corpus(emu, "scan_in_place.cu", "scan_in_place", dim3(1), dim3(kScanBlock), 0, in, out, kScanBlock);
    });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"scan_in_place", {0, 0, 0}, std::nullopt, project_file(corpus_path("scan_in_place.cu")),
                                    "RACE(scan_in_place_update)", {"data race", "x["}});
    EXPECT_EQ(f->fault.file, corpus_path("scan_in_place.cu"));
    EXPECT_LT(f->fault.thread.x, kScanBlock);
    EXPECT_TRUE(contains(f->what(), triple("thread", f->fault.thread))) << f->what();
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, ScanInPlace, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- 5-point stencil with a halo tile ----

std::vector<float> cpu_stencil(const std::vector<float>& in, int width, int height)
{
    auto at = [&](int x, int y) { return x >= 0 && x < width && y >= 0 && y < height ? in[y * width + x] : 0.0f; };
    std::vector<float> out(in.size());
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            out[y * width + x] = 4.0f * at(x, y) - (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y));
    return out;
}

TEST_F(CorpusTest, StencilWithHaloTileOnGridsThatAreNotMultiplesOfTheTile)
{
    // Small integers as floats: every sum is exact, so the results compare equal.
    const std::pair<int, int> shapes[] = {{1, 1}, {37, 23}, {16, 16}, {33, 17}, {5, 70}};
    for (auto [width, height] : shapes) {
        SCOPED_TRACE("grid " + std::to_string(width) + " x " + std::to_string(height));
        Emulator emu;
        const auto ints = seeded_ints<int>(std::size_t(width) * height, -8, 8, 4000 + width * 100 + height);
        const std::vector<float> cells(ints.begin(), ints.end());
        float* in = to_device(emu, cells);
        float* out = emu.alloc<float>(cells.size());
        const dim3 grid(blocks_for(width, kStencilTile), blocks_for(height, kStencilTile));
        ASSERT_NO_THROW(run_corpus(emu, "stencil_5pt.cu", "stencil_5pt", grid, dim3(kStencilTile, kStencilTile), 0, in, out,
                                   width, height));
        EXPECT_EQ(to_host(emu, out, cells.size()), cpu_stencil(cells, width, height));
    }
}

// ---- transpose ----

TEST_F(CorpusTest, TransposesAreRightAtOddShapes)
{
    const std::pair<unsigned, unsigned> shapes[] = {{1, 1}, {33, 70}, {64, 96}, {257, 31}};
    for (const char* version : {"transpose_naive", "transpose_shared", "transpose_padded"}) {
        for (auto [width, height] : shapes) {
            SCOPED_TRACE(std::string(version) + " " + std::to_string(width) + " x " + std::to_string(height));
            Emulator emu;
            const auto cells = seeded_floats(std::size_t(width) * height, -1, 1, 5000 + width + height);
            float* in = to_device(emu, cells);
            float* out = emu.alloc<float>(cells.size());
            const dim3 grid(blocks_for(width, kTransposeTile), blocks_for(height, kTransposeTile));
            ASSERT_NO_THROW(run_corpus(emu, std::string(version) + ".cu", version, grid,
                                       dim3(kTransposeTile, kTransposeRows), 0, in, out, width, height));
            const auto got = to_host(emu, out, cells.size());
            for (unsigned y = 0; y < height; ++y)
                for (unsigned x = 0; x < width; ++x)
                    ASSERT_EQ(got[std::size_t(x) * height + y], cells[std::size_t(y) * width + x]) << "in[" << y << "][" << x << "]";
        }
    }
}

// A fault report whose block and thread vary with the schedule and the order
// of parallel blocks: it must still name the kernel, the user's file and the
// marked line, one of the expected phrases, and the block and thread it gives.
void expect_fault_at(const KernelFault& f, const std::string& kernel, const std::string& file, const std::string& marker,
                     const std::vector<std::string>& any_of)
{
    const std::string message = f.what();
    SCOPED_TRACE("fault message: " + message);
    EXPECT_EQ(f.fault.kernel, kernel);
    EXPECT_EQ(f.fault.file, corpus_path(file));
    EXPECT_EQ(f.fault.line, marker_line(project_file(corpus_path(file)), marker));
    EXPECT_TRUE(contains(message, triple("block", f.fault.block)));
    EXPECT_TRUE(contains(message, triple("thread", f.fault.thread)));
    EXPECT_TRUE(std::any_of(any_of.begin(), any_of.end(), [&](const std::string& p) { return contains(message, p); }));
}

class TransposeNoSync : public CorpusScheduleTest {};

TEST_P(TransposeNoSync, ReadsTheTileBeforeOtherWarpsWroteIt)
{
    // One 32 x 32 tile: lane x reads row x of the tile, which warp x % 8
    // writes. Without the barrier the read comes before that write (a read of
    // memory not yet written) or, where the writer ran first, unordered with
    // it (a race): either way a fault at the column read.
    const auto cells = seeded_floats(kTransposeTile * kTransposeTile, -1, 1, 28);
    float* in = to_device(emu, cells);
    float* out = emu.alloc<float>(cells.size());
    auto f = fault_of([&] {
        run_corpus(emu, "transpose_no_sync.cu", "transpose_no_sync", dim3(1), dim3(kTransposeTile, kTransposeRows), 0, in,
                   out, kTransposeTile, kTransposeTile);
    });
    ASSERT_TRUE(f);
    expect_fault_at(*f, "transpose_no_sync", "transpose_no_sync.cu", "FAULT(column_read)",
                    {"data race", "uninitialised shared memory"});
    EXPECT_TRUE(contains(f->what(), "tile[")) << f->what();
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, TransposeNoSync, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

TEST_F(CorpusTest, TransposeWithoutBoundsChecksIsRightOnlyForWholeTiles)
{
    // 64 x 96: every block full, the result right.
    {
        const auto cells = seeded_floats(64 * 96, -1, 1, 29);
        float* in = to_device(emu, cells);
        float* out = emu.alloc<float>(cells.size());
        ASSERT_NO_THROW(run_corpus(emu, "transpose_unchecked.cu", "transpose_unchecked", dim3(2, 3),
                                   dim3(kTransposeTile, kTransposeRows), 0, in, out, 64u, 96u));
        const auto got = to_host(emu, out, cells.size());
        for (unsigned y = 0; y < 96; ++y)
            for (unsigned x = 0; x < 64; ++x) ASSERT_EQ(got[x * 96 + y], cells[y * 64 + x]);
    }
    // 33 x 70 (grid 2 x 3): the blocks of the last tile row read rows 70..95,
    // past the 33 x 70 floats.
    const auto cells = seeded_floats(33 * 70, -1, 1, 30);
    float* in = to_device(emu, cells);
    float* out = emu.alloc<float>(cells.size());
    auto f = fault_of([&] {
        run_corpus(emu, "transpose_unchecked.cu", "transpose_unchecked", dim3(2, 3), dim3(kTransposeTile, kTransposeRows), 0,
                   in, out, 33u, 70u);
    });
    ASSERT_TRUE(f);
    expect_fault_at(*f, "transpose_unchecked", "transpose_unchecked.cu", "FAULT(unchecked_load)",
                    {"out-of-bounds load", "out-of-bounds store"});
}

// ---- float atomic max on atomicCAS ----

class FloatAtomicMax : public CorpusScheduleTest {};

// Under lockstep the lanes of a warp interleave at every access, so a lane's
// atomicCAS can find the value changed by another lane and the loop retries;
// under independent scheduling a lane runs its loop alone.
TEST_P(FloatAtomicMax, OnCompareAndSwapHandlesNegativeNumbers)
{
    // All negative first: negative floats order backwards as ints (-1.0f is
    // 0xbf800000, -1000.0f is 0xc47a0000, a larger int), so a loop that
    // compared the bit patterns would keep the most negative value. Then mixed signs.
    struct Case {
        float lo, hi;
    };
    for (Case c : {Case{-1000.0f, -1.0f}, Case{-50.0f, 50.0f}}) {
        for (std::size_t n : odd_sizes()) {
            SCOPED_TRACE("[" + std::to_string(c.lo) + ", " + std::to_string(c.hi) + "], n = " + std::to_string(n));
            const auto values = seeded_floats(n, c.lo, c.hi, 6000 + n);
            float* in = to_device(emu, values);
            float* result = to_device(emu, std::vector<float>{-std::numeric_limits<float>::infinity()});
            ASSERT_NO_THROW(run_corpus(emu, "atomic_max_float.cu", "max_of_floats", dim3(5), dim3(96), 0, in,
                                       static_cast<unsigned>(n), result));
            EXPECT_EQ(to_host(emu, result, 1)[0], *std::max_element(values.begin(), values.end()));
            // The loop's first plain read of *result races with other threads' atomicCAS, as the
            // Guide's loops do; its compare catches a stale value, so nothing is warned of.
            EXPECT_TRUE(emu.take_warnings().empty());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, FloatAtomicMax, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- cooperative groups ----

TEST_F(CorpusTest, CooperativeGroupsBlockReductionsGiveTheExactTotal)
{
    for (const char* kernel : {"sum_with_cg_shfl", "sum_with_cg_reduce"}) {
        for (std::size_t n : odd_sizes()) {
            SCOPED_TRACE(std::string(kernel) + ", n = " + std::to_string(n));
            Emulator emu;
            const auto values = seeded_ints<int>(n, -1000, 1000, 7000 + n);
            int* in = to_device(emu, values);
            int* total = zeros<int>(emu, 1);
            ASSERT_NO_THROW(run_corpus(emu, "cg_block_reduce.cu", kernel, dim3(blocks_for(n, 256)), dim3(256), 0, in,
                                       static_cast<unsigned>(n), total));
            EXPECT_EQ(to_host(emu, total, 1)[0], std::accumulate(values.begin(), values.end(), 0));
        }
    }
}

// ---- barriers that count ----

TEST_F(CorpusTest, SyncthreadsCountAndAndOr)
{
    // Blocks of 96 threads (3 warps): block 0 all true, block 1 all false,
    // blocks 2..4 random with about a third true.
    constexpr unsigned kBlock = 96, kBlocks = 5;
    std::vector<int> flags(kBlock * kBlocks);
    const auto coin = seeded_ints<int>(flags.size(), 0, 2, 8);
    for (unsigned i = 0; i < flags.size(); ++i) flags[i] = i < kBlock ? 1 : i < 2 * kBlock ? 0 : coin[i] == 0;
    int* in = to_device(emu, flags);
    int* out = emu.alloc<int>(3 * kBlocks);
    ASSERT_NO_THROW(run_corpus(emu, "sync_count.cu", "predicate_counts", dim3(kBlocks), dim3(kBlock), 0, in, out));
    const auto got = to_host(emu, out, 3 * kBlocks);
    for (unsigned b = 0; b < kBlocks; ++b) {
        SCOPED_TRACE("block " + std::to_string(b));
        const int count = std::count(flags.begin() + b * kBlock, flags.begin() + (b + 1) * kBlock, 1);
        EXPECT_EQ(got[3 * b], count);
        EXPECT_EQ(got[3 * b + 1], count == int(kBlock) ? 1 : 0);
        EXPECT_EQ(got[3 * b + 2], count > 0 ? 1 : 0);
    }
    // The cases are what they claim: 96, 0, and something strictly between.
    EXPECT_EQ(got[0], 96);
    EXPECT_EQ(got[3], 0);
    EXPECT_GT(got[6], 0);
    EXPECT_LT(got[6], 96);
}

// ---- dynamic shared memory ----

TEST_F(CorpusTest, DynamicSharedMemorySizedAtLaunch)
{
    // 5 blocks of 96: out[96 b + t] = in[96 b + 95 - t].
    constexpr unsigned kBlock = 96, kBlocks = 5;
    const auto values = seeded_floats(kBlock * kBlocks, -1, 1, 9);
    float* in = to_device(emu, values);
    float* out = emu.alloc<float>(values.size());
    ASSERT_NO_THROW(run_corpus(emu, "dynamic_shared.cu", "reverse_segments", dim3(kBlocks), dim3(kBlock),
                               kBlock * sizeof(float), in, out));
    const auto got = to_host(emu, out, values.size());
    for (unsigned i = 0; i < values.size(); ++i) EXPECT_EQ(got[i], values[i / kBlock * kBlock + kBlock - 1 - i % kBlock]);
}

TEST_F(CorpusTest, IndexPastTheDynamicSizeIsOutOfBounds)
{
    // One float too few: thread 95 stores segment[95], past the 95 floats.
    constexpr unsigned kBlock = 96;
    float* in = to_device(emu, seeded_floats(kBlock, -1, 1, 10));
    float* out = emu.alloc<float>(kBlock);
    auto f = fault_of([&] {
        run_corpus(emu, "dynamic_shared.cu", "reverse_segments", dim3(1), dim3(kBlock), (kBlock - 1) * sizeof(float), in, out);
    });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"reverse_segments", {0, 0, 0}, uint3{95, 0, 0}, project_file(corpus_path("dynamic_shared.cu")),
                                    "FAULT(dynamic_past_end)", {"out-of-bounds shared store", "segment[95]", "95 elements"}});
}

// ---- atomicAdd of a block's float or double sum ----

TEST_F(CorpusTest, BlockSumsAddedAtomicallyGiveTheTotal)
{
    // Small integers (floats) and halves (doubles): every partial sum is
    // exact, so the total does not depend on the order of the atomic adds.
    for (std::size_t n : odd_sizes()) {
        SCOPED_TRACE("n = " + std::to_string(n));
        Emulator emu;
        const auto ints = seeded_ints<int>(n, -100, 100, 8000 + n);
        const std::vector<float> floats(ints.begin(), ints.end());
        std::vector<double> doubles;
        for (int v : ints) doubles.push_back(v / 2.0);
        const long long int_total = std::accumulate(ints.begin(), ints.end(), 0LL);

        float* fin = to_device(emu, floats);
        float* fout = zeros<float>(emu, 1);
        ASSERT_NO_THROW(run_corpus(emu, "block_sum_atomic.cu", "sum_floats", dim3(blocks_for(n, kSumBlock)), dim3(kSumBlock),
                                   0, fin, static_cast<unsigned>(n), fout));
        EXPECT_EQ(to_host(emu, fout, 1)[0], static_cast<float>(int_total));

        double* din = to_device(emu, doubles);
        double* dout = zeros<double>(emu, 1);
        ASSERT_NO_THROW(run_corpus(emu, "block_sum_atomic.cu", "sum_doubles", dim3(blocks_for(n, kSumBlock)),
                                   dim3(kSumBlock), 0, din, static_cast<unsigned>(n), dout));
        EXPECT_EQ(to_host(emu, dout, 1)[0], int_total / 2.0);
    }
}

// ---- per-thread arrays in local memory ----

TEST_F(CorpusTest, EachThreadSortsItsRowInALocalArray)
{
    // 257 rows of kSortWidth values, blocks of 64: the last block is partly idle.
    constexpr unsigned kRows = 257;
    const auto values = seeded_ints<int>(kRows * kSortWidth, -50, 50, 27);
    int* in = to_device(emu, values);
    int* out = emu.alloc<int>(values.size());
    ASSERT_NO_THROW(run_corpus(emu, "local_sort.cu", "sort_rows", dim3(blocks_for(kRows, 64)), dim3(64), 0, in, out, kRows));
    auto expected = values;
    for (unsigned r = 0; r < kRows; ++r) std::sort(expected.begin() + r * kSortWidth, expected.begin() + (r + 1) * kSortWidth);
    EXPECT_EQ(to_host(emu, out, values.size()), expected);
}

}  // namespace
}  // namespace warplab::test
