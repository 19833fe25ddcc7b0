// What the trace of plain-CUDA corpus kernels shows, derived by hand: bank
// conflicts of a shared-memory transpose with and without padding, sectors
// of coalesced and strided global accesses, and the real width of 8- and
// 16-byte accesses.
#include <gtest/gtest.h>

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
// a quarter warp at a time: 16 lanes x 8 bytes = 8 lanes x 16 bytes = 128
// bytes, all 32 banks once. So a full warp of consecutive elements (or the
// reversed order the copies read back) needs 2 wavefronts (8 bytes) or 4 (16
// bytes), which is also the ideal: 1-way. Global: 32 x 8 = 256 bytes -> 8
// sectors; 32 x 16 = 512 bytes -> 16 sectors per request.
struct WideCase {
    const char* kernel;
    unsigned size;        // bytes per access
    unsigned wavefronts;  // per warp request
    unsigned sectors;     // per warp request
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

}  // namespace
}  // namespace warplab::test
