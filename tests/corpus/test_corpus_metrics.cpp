// What the trace of plain-CUDA corpus kernels shows, derived by hand: bank
// conflicts of a shared-memory transpose with and without padding and of a
// stencil's halo tile, sectors of coalesced and strided global accesses and
// of a histogram's byte loads, partially active warps of a scan and a halo
// load, the real width of 8- and 16-byte accesses, the steps of counting
// barriers, dynamic shared memory, and the warp collectives of cooperative
// groups.
#include <gtest/gtest.h>

#include <numeric>

#include "corpus/corpus_test.h"
#include "warplab/trace/analysis.h"

namespace warplab::test {
namespace {

using namespace corpus;
using wl::trace::StepMetrics;

// ---- transpose: 64 x 64 floats, block 0 traced ----
//
// Block (32, 8): 256 threads, warp w is the row threadIdx.y = w. Each thread
// handles rows r = threadIdx.y + 8k, k = 0..3: every access site runs 4
// times per warp, so each site gives 8 warps x 4 = 32 warp requests.
// Buffers are 256-byte aligned and a row of 64 floats is 256 bytes.
//   global load in[y * 64 + x]: 32 lanes x 4 consecutive bytes -> 4 sectors.
//   naive store out[x * 64 + y]: lanes 256 bytes apart -> 32 sectors, ideal 4.
//   shared/padded store out[out_y * 64 + out_x]: consecutive -> 4 sectors.
//   shared store tile[r][x]: 32 consecutive words -> 1 wavefront.
//   unpadded load tile[x][r]: word 32 x + r, bank r for every lane: 32 words
//     of one bank -> 32 wavefronts, ideal 1: 32-way.
//   padded load tile[x][r] with rows of 33: word 33 x + r, bank (x + r) mod 32,
//     all different -> 1 wavefront.
constexpr unsigned kSide = 64;
constexpr unsigned kRequests = 32;

std::vector<StepMetrics> transpose_steps(const char* version)
{
    Emulator emu;
    const auto cells = seeded_floats(kSide * kSide, -1, 1, 11);
    float* in = to_device(emu, cells);
    float* out = emu.alloc<float>(cells.size());
    run_corpus(emu, std::string(version) + ".cu", version, dim3(kSide / kTransposeTile, kSide / kTransposeTile),
               dim3(kTransposeTile, kTransposeRows), 0, in, out, kSide, kSide);
    return wl::trace::analyze_steps(
        wl::trace::group_block(0, kTransposeTile * kTransposeRows, emu.take_records()));
}

TEST_F(CorpusTest, NaiveTransposeLoadsCoalescedAndStoresOneSectorPerLane)
{
    const auto steps = transpose_steps("transpose_naive");
    ASSERT_EQ(steps.size(), 1u) << "no barrier: one step";
    const StepMetrics& m = steps[0];
    EXPECT_EQ(m.active_threads, 256u);
    EXPECT_EQ(m.global_load.requests, kRequests);
    EXPECT_EQ(m.global_load.sectors_per_request(), 4.0);
    EXPECT_EQ(m.global_load.sectors, m.global_load.ideal);
    EXPECT_EQ(m.global_store.requests, kRequests);
    EXPECT_EQ(m.global_store.sectors_per_request(), 32.0);
    EXPECT_EQ(m.global_store.ideal, 4 * kRequests);
    EXPECT_EQ(m.shared_load.requests + m.shared_store.requests, 0u);
}

// Step 0 loads the tile (ends at the barrier), step 1 writes it out transposed.
void expect_tile_transpose(const std::vector<StepMetrics>& steps, double column_read_ways)
{
    ASSERT_EQ(steps.size(), 2u);
    const StepMetrics& load = steps[0];
    EXPECT_TRUE(load.has_barrier_end);
    EXPECT_EQ(load.global_load.requests, kRequests);
    EXPECT_EQ(load.global_load.sectors_per_request(), 4.0);
    EXPECT_EQ(load.shared_store.requests, kRequests);
    EXPECT_EQ(load.shared_store.wavefronts, kRequests);
    EXPECT_EQ(load.shared_store.worst_ways, 1.0);

    const StepMetrics& store = steps[1];
    EXPECT_EQ(store.global_store.requests, kRequests);
    EXPECT_EQ(store.global_store.sectors_per_request(), 4.0);
    EXPECT_EQ(store.shared_load.requests, kRequests);
    EXPECT_EQ(store.shared_load.ideal, kRequests);
    EXPECT_EQ(store.shared_load.wavefronts, static_cast<std::uint32_t>(column_read_ways * kRequests));
    EXPECT_EQ(store.shared_load.worst_ways, column_read_ways);
    ASSERT_EQ(store.shared_load_ways.size(), kRequests);
    for (double w : store.shared_load_ways) EXPECT_EQ(w, column_read_ways) << "every column read";
}

TEST_F(CorpusTest, UnpaddedTileColumnReadsAre32Way)
{
    expect_tile_transpose(transpose_steps("transpose_shared"), 32.0);
}

TEST_F(CorpusTest, PaddedTileColumnReadsAreConflictFree)
{
    expect_tile_transpose(transpose_steps("transpose_padded"), 1.0);
}

// ---- 8- and 16-byte shared accesses: one block of 64 threads (2 warps) ----
//
// Shared memory serves 8-byte accesses a half warp at a time and 16-byte ones
// a quarter warp at a time (when no two lanes read one address): 16 lanes x 8
// bytes = 8 lanes x 16 bytes = 128 bytes, all 32 banks once. So a full warp of
// consecutive elements (or the reversed order the copies read back) needs 2
// wavefronts (8 bytes) or 4 (16 bytes), which is also the ideal: 1-way. Global: 32 x 8 = 256 bytes -> 8
// sectors; 32 x 16 = 512 bytes -> 16 sectors per request.
struct WideCase {
    const char* kernel;
    unsigned size;        // bytes per access
    unsigned wavefronts;  // per warp request
    unsigned sectors;     // per warp request
    friend void PrintTo(const WideCase& c, std::ostream* os) { *os << c.kernel; }
};

class WideShared : public ::testing::TestWithParam<WideCase> {
protected:
    void SetUp() override { WL_SKIP_WITHOUT_NVCC(); }
};

TEST_P(WideShared, TraceHasTheRealWidthAndTheIdealWavefronts)
{
    const WideCase c = GetParam();
    constexpr unsigned kThreads = 64, kWarps = 2;
    Emulator emu;
    // Bytes with distinct float values, enough for either width.
    const auto values = seeded_floats(kThreads * c.size / sizeof(float), -1, 1, 12);
    float* in = to_device(emu, values);
    float* out = emu.alloc<float>(values.size());
    ASSERT_NO_THROW(run_corpus(emu, "wide_shared.cu", c.kernel, dim3(1), dim3(kThreads), 0, in, out));

    // The copy reverses the elements of c.size bytes: element e of out is element 63 - e of in.
    const auto got = to_host(emu, out, values.size());
    const unsigned floats_per_element = c.size / sizeof(float);
    for (unsigned e = 0; e < kThreads; ++e)
        for (unsigned k = 0; k < floats_per_element; ++k)
            ASSERT_EQ(got[e * floats_per_element + k], values[(kThreads - 1 - e) * floats_per_element + k]) << "element " << e;

    const auto block = wl::trace::group_block(0, kThreads, emu.take_records());
    unsigned shared_events = 0;
    for (const auto& ev : block.events) {
        if (ev.space == wl::trace::Space::None) continue;
        EXPECT_EQ(ev.size, c.size) << "every memory access of the copy is one " << c.size << "-byte element";
        shared_events += ev.space == wl::trace::Space::Shared;
    }
    EXPECT_EQ(shared_events, 2 * kWarps) << "a store and a load per warp";

    const auto steps = wl::trace::analyze_steps(block);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].shared_store.requests, kWarps);
    EXPECT_EQ(steps[0].shared_store.wavefronts, kWarps * c.wavefronts);
    EXPECT_EQ(steps[0].shared_store.ideal, kWarps * c.wavefronts);
    EXPECT_EQ(steps[0].global_load.sectors, kWarps * c.sectors);
    EXPECT_EQ(steps[1].shared_load.requests, kWarps);
    EXPECT_EQ(steps[1].shared_load.wavefronts, kWarps * c.wavefronts);
    EXPECT_EQ(steps[1].shared_load.worst_ways, 1.0);
    EXPECT_EQ(steps[1].global_store.sectors, kWarps * c.sectors);
}

INSTANTIATE_TEST_SUITE_P(Widths, WideShared,
                         ::testing::Values(WideCase{"copy_double", 8, 2, 8}, WideCase{"copy_float2", 8, 2, 8},
                                           WideCase{"copy_float4", 16, 4, 16}),
                         [](const ::testing::TestParamInfo<WideCase>& info) { return std::string(info.param.kernel); });

// ---- histogram: n = 2^16 + 3 bytes, 7 blocks of 192 threads (6 warps), block 0 traced ----
//
// Step 0 clears the bins: bin b = t and t + 192 < 256, so every warp stores
// once and warps 0 and 1 (t < 64) twice: 8 requests of 32 consecutive words,
// 1 wavefront each.
// Step 1 counts: thread t of block 0 reads byte t + 1344 k (1344 = 7 x 192 =
// 42 x 32) for k = 0..48, since 48 x 1344 + 191 = 64703 < n <= 49 x 1344: 49
// loads per warp, all full, each 32 consecutive bytes starting at a multiple
// of 32: one sector, the ideal. Each load is followed by one shared atomic.
// Step 2 adds the bins out: shared loads as in step 0 (8 requests, 1
// wavefront), and since each bin of block 0 counted some of its 9408 bytes
// (the chance that one is empty is (255/256)^9408, about e^-37), 8 global
// atomics of 32 consecutive counters: 128 bytes, 4 sectors each.
TEST_F(CorpusTest, HistogramLoadsOneSectorPerWarpAndCountsInShared)
{
    constexpr unsigned n = (1u << 16) + 3;
    const auto ints = seeded_ints<unsigned>(n, 0, 255, 22);
    const std::vector<unsigned char> bytes(ints.begin(), ints.end());
    unsigned char* in = to_device(emu, bytes);
    unsigned* bins = zeros<unsigned>(emu, kBins);
    ASSERT_NO_THROW(run_corpus(emu, "histogram.cu", "histogram_shared_atomics", dim3(7), dim3(192), 0, in, n, bins));
    const auto steps = wl::trace::analyze_steps(wl::trace::group_block(0, 192, emu.take_records()));
    ASSERT_EQ(steps.size(), 3u);

    EXPECT_EQ(steps[0].shared_store.requests, 8u);
    EXPECT_EQ(steps[0].shared_store.wavefronts, 8u);

    EXPECT_EQ(steps[1].active_threads, 192u);
    EXPECT_EQ(steps[1].partial_warps, 0u);
    EXPECT_EQ(steps[1].global_load.requests, 6u * 49);
    EXPECT_EQ(steps[1].global_load.sectors, 6u * 49);
    EXPECT_EQ(steps[1].global_load.ideal, 6u * 49);
    EXPECT_EQ(steps[1].shared_store.requests, 6u * 49) << "one shared atomic per byte";

    EXPECT_EQ(steps[2].shared_load.requests, 8u);
    EXPECT_EQ(steps[2].shared_load.wavefronts, 8u);
    EXPECT_EQ(steps[2].global_store.requests, 8u) << "global atomics count as stores";
    EXPECT_EQ(steps[2].global_store.sectors, 8u * 4);
}

// ---- double-buffered scan: one full block of 128 threads (4 warps) ----
//
// Step 0 loads in[t] and stores buffer[0][t]. Steps 1..7 (d = 1, 2, 4, ..., 64)
// each load buffer[src][t] in every thread, buffer[src][t - d] only where
// t >= d, and store buffer[dst][t] in every thread; step 8 loads the result
// and stores out[t]. So every step has all 128 threads active. At d < 32 the
// threads 0..d-1 of warp 0 skip the second load: warp 0 is partial in steps
// 1..5. At d = 32 and 64 whole warps skip it (0, then 0 and 1): none partial.
// The second load runs in 4, 4, 4, 4, 4, 3, 2 warps. Every access reads or
// writes consecutive words: 1 wavefront each.
TEST_F(CorpusTest, ScanStepsHaveWholeThreadCountsAndOnePartialWarpWhileTheOffsetIsBelow32)
{
    const auto values = seeded_ints<int>(kScanBlock, -1000, 1000, 23);
    int* in = to_device(emu, values);
    int* out = emu.alloc<int>(kScanBlock);
    ASSERT_NO_THROW(run_corpus(emu, "scan_double_buffered.cu", "scan_double_buffered", dim3(1), dim3(kScanBlock), 0, in,
                               out, kScanBlock));
    const auto steps = wl::trace::analyze_steps(wl::trace::group_block(0, kScanBlock, emu.take_records()));
    ASSERT_EQ(steps.size(), 9u);
    const std::uint32_t partial[] = {1, 1, 1, 1, 1, 0, 0};
    const std::uint32_t second_loads[] = {4, 4, 4, 4, 4, 3, 2};
    for (unsigned k = 0; k < 9; ++k) {
        SCOPED_TRACE("step " + std::to_string(k));
        EXPECT_EQ(steps[k].active_threads, kScanBlock);
        EXPECT_EQ(steps[k].has_barrier_end, k < 8);
        if (steps[k].shared_load.requests) {
            EXPECT_EQ(steps[k].shared_load.worst_ways, 1.0);
        }
        if (steps[k].shared_store.requests) {
            EXPECT_EQ(steps[k].shared_store.worst_ways, 1.0);
        }
        if (k >= 1 && k <= 7) {
            EXPECT_EQ(steps[k].partial_warps, partial[k - 1]);
            EXPECT_EQ(steps[k].shared_load.requests, 4 + second_loads[k - 1]);
            EXPECT_EQ(steps[k].shared_store.requests, 4u);
        }
    }
    EXPECT_EQ(steps[0].global_load.requests, 4u);
    EXPECT_EQ(steps[8].global_store.requests, 4u);
    EXPECT_EQ(steps[8].global_store.sectors, 16u);
}

// ---- stencil: a 48 x 48 grid, blocks of 16 x 16 (8 warps), block 0 traced ----
//
// Warp w holds tile rows ty = 2w and 2w + 1, 16 lanes each. A tile row has 18
// floats, so tile[R][C] is word 18 R + C. A warp's access to tile[ty + a][tx + b]
// covers words s .. s+15 (first row) and s+18 .. s+33 (second row): mod 32 the
// second set is s+18 .. s+31 and s, s+1, so banks s and s+1 each hold two
// different words: 2 wavefronts, ideal 1: 2-way, for every full-warp access.
// Step 0 (the load): the centre store (8 warps) is 2-way; the west and east
// halo stores (tx == 0, tx == 15: 2 lanes in every warp, words 18 apart) and
// the north and south ones (16 consecutive words in warps 0 and 7) take 1
// wavefront: 26 requests, 16 + 8 + 8 + 1 + 1 = 34 wavefronts. Every warp has
// events with 2 of its 32 lanes: 8 partial warps.
// Step 1: 5 loads per warp (4 neighbours, the centre), all 2-way: 40
// requests, 80 wavefronts, ideal 40; block 0 lies inside the grid, so all 256
// threads work and no warp is partial.
TEST_F(CorpusTest, StencilHaloTileOf18ColumnsIsTwoWayForBlocksOf16)
{
    constexpr int kSide = 48;
    const auto ints = seeded_ints<int>(kSide * kSide, -8, 8, 24);
    const std::vector<float> cells(ints.begin(), ints.end());
    float* in = to_device(emu, cells);
    float* out = emu.alloc<float>(cells.size());
    ASSERT_NO_THROW(run_corpus(emu, "stencil_5pt.cu", "stencil_5pt", dim3(3, 3), dim3(kStencilTile, kStencilTile), 0, in,
                               out, kSide, kSide));
    const auto steps =
        wl::trace::analyze_steps(wl::trace::group_block(0, kStencilTile * kStencilTile, emu.take_records()));
    ASSERT_EQ(steps.size(), 2u);

    const StepMetrics& load = steps[0];
    EXPECT_EQ(load.active_threads, 256u);
    EXPECT_EQ(load.partial_warps, 8u);
    EXPECT_EQ(load.shared_store.requests, 26u);
    EXPECT_EQ(load.shared_store.wavefronts, 34u);
    EXPECT_EQ(load.shared_store.ideal, 26u);
    EXPECT_EQ(load.shared_store.worst_ways, 2.0);

    const StepMetrics& compute = steps[1];
    EXPECT_EQ(compute.active_threads, 256u);
    EXPECT_EQ(compute.partial_warps, 0u);
    EXPECT_EQ(compute.shared_load.requests, 40u);
    EXPECT_EQ(compute.shared_load.wavefronts, 80u);
    EXPECT_EQ(compute.shared_load.ideal, 40u);
    for (double w : compute.shared_load_ways) EXPECT_EQ(w, 2.0);
}

// ---- __syncthreads_count / _and / _or: 2 blocks of 96 threads, block 0 traced ----
//
// Each of the three is a barrier: step 0 loads the flags (3 warps, 4 sectors
// each) and ends at the first, steps 1 and 2 end at the next two, and step 3
// holds thread 0's three stores.
TEST_F(CorpusTest, CountingBarriersEachEndAStep)
{
    const auto flags = seeded_ints<int>(192, 0, 1, 25);
    int* in = to_device(emu, flags);
    int* out = emu.alloc<int>(6);
    ASSERT_NO_THROW(run_corpus(emu, "sync_count.cu", "predicate_counts", dim3(2), dim3(96), 0, in, out));
    const auto steps = wl::trace::analyze_steps(wl::trace::group_block(0, 96, emu.take_records()));
    ASSERT_EQ(steps.size(), 4u);
    for (unsigned k = 0; k < 3; ++k) EXPECT_TRUE(steps[k].has_barrier_end) << "step " << k;
    EXPECT_EQ(steps[0].global_load.requests, 3u);
    EXPECT_EQ(steps[0].global_load.sectors, 12u);
    EXPECT_EQ(steps[3].active_threads, 1u);
    EXPECT_EQ(steps[3].global_store.requests, 3u);
}

// ---- dynamic shared memory: one block of 96 threads (3 warps) ----
//
// The trace declares the extern array by its source name with the launch's
// size, 96 floats. Stores segment[t] and loads segment[95 - t] (reversed, still
// 32 different consecutive words per warp): 3 requests of 1 wavefront each.
TEST_F(CorpusTest, DynamicSharedArrayIsDeclaredWithTheLaunchSize)
{
    constexpr unsigned kBlock = 96;
    float* in = to_device(emu, seeded_floats(kBlock, -1, 1, 26));
    float* out = emu.alloc<float>(kBlock);
    ASSERT_NO_THROW(run_corpus(emu, "dynamic_shared.cu", "reverse_segments", dim3(1), dim3(kBlock), kBlock * sizeof(float),
                               in, out));
    const auto block = wl::trace::group_block(0, kBlock, emu.take_records());
    ASSERT_EQ(block.shared_arrays.size(), 1u);
    EXPECT_EQ(block.shared_arrays[0].name, "segment");
    EXPECT_EQ(block.shared_arrays[0].elem_size * block.shared_arrays[0].count, kBlock * sizeof(float));
    const auto steps = wl::trace::analyze_steps(block);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].shared_store.requests, 3u);
    EXPECT_EQ(steps[0].shared_store.wavefronts, 3u);
    EXPECT_EQ(steps[1].shared_load.requests, 3u);
    EXPECT_EQ(steps[1].shared_load.wavefronts, 3u);
}

// ---- cooperative groups: one block of 64 threads (2 warps), n = 64 ----
//
// sum_with_cg_shfl folds each warp with warp.shfl_down at offsets 16, 8, 4,
// 2, 1: 5 shuffles per warp, then warp 0 folds the 2 partial sums with 5
// more: 2 x 5 + 5 = 15 shuffle events, every one with all 32 lanes.
// sum_with_cg_reduce does each fold with cg::reduce, which nvcc turns into
// one warp reduction instruction (redux.sync, recorded as a vote): 2 + 1 = 3
// events and no shuffle.
unsigned count_events(const wl::trace::BlockTrace& block, wl::trace::Kind kind)
{
    unsigned count = 0;
    for (const auto& ev : block.events) {
        if (ev.kind != kind) continue;
        ++count;
        EXPECT_EQ(ev.mask, 0xffffffffu) << "a collective of the whole warp";
    }
    return count;
}

TEST_F(CorpusTest, CooperativeGroupsFoldsAreShufflesOrOneWarpReduction)
{
    const auto values = seeded_ints<int>(64, -1000, 1000, 31);
    const int expected = std::accumulate(values.begin(), values.end(), 0);
    for (const char* kernel : {"sum_with_cg_shfl", "sum_with_cg_reduce"}) {
        SCOPED_TRACE(kernel);
        Emulator emu;
        int* in = to_device(emu, values);
        int* total = zeros<int>(emu, 1);
        ASSERT_NO_THROW(run_corpus(emu, "cg_block_reduce.cu", kernel, dim3(1), dim3(64), 0, in, 64u, total));
        EXPECT_EQ(to_host(emu, total, 1)[0], expected);
        const auto block = wl::trace::group_block(0, 64, emu.take_records());
        const bool shuffles = std::string(kernel) == "sum_with_cg_shfl";
        EXPECT_EQ(count_events(block, wl::trace::Kind::Shuffle), shuffles ? 15u : 0u);
        EXPECT_EQ(count_events(block, wl::trace::Kind::Vote), shuffles ? 0u : 3u);
    }
}

}  // namespace
}  // namespace warplab::test
