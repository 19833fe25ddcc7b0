// The per-step metrics each transpose version exists to teach, measured on the
// emulator's trace of block 0 at the lab's trace default, in = 64×64 floats
// (a multiple of every tile and of 32: every warp's row of 32 floats starts
// on a 128-byte boundary, since a row is 256 bytes and buffers are 256-byte
// aligned). Every expected number is derived by hand in the comment beside it.
//
// Notation: lane = threadIdx.x (0..31), w = threadIdx.y = the warp's index in
// the block (blockDim.x is 32 in every version). A shared word's bank is
// word mod 32; a global request's sectors are the distinct 32-byte pieces its
// lanes touch, ideal 4 for 32 lanes × 4 contiguous bytes.
#include "labs/transpose/versions.h"
#include "transpose_test.h"
#include "warplab/trace/analysis.h"

namespace warplab::test {
namespace {

using wl::trace::StepMetrics;

TracedRun trace_of(const std::string& version)
{
    TracedRun run = trace_version(transpose_lab(), cpu_request(version, {}));
    EXPECT_TRUE(run.result.ok) << version << ": " << run.result.check;
    return run;
}

// Every shared load instruction of the step was n-way.
void expect_every_load_ways(const StepMetrics& step, double ways)
{
    ASSERT_FALSE(step.shared_load_ways.empty());
    for (double w : step.shared_load_ways) EXPECT_EQ(w, ways);
}

// v1 (32×32 threads, no barrier: one step). Warp w reads in[w][0..31]:
//   32 contiguous floats, 4 sectors (the ideal). It writes out[lane][w]:
//   lanes 64 floats = 256 bytes apart, each in its own sector: 32 sectors per
//   request, ideal 4. 32 warps, one request each per direction:
//   loads 32 × 4 = 128 sectors, stores 32 × 32 = 1024 (ideal 128).
TEST(TransposeMetrics, V1WritesDownAColumn)
{
    const TracedRun v1 = trace_of("v1");
    ASSERT_EQ(v1.steps.size(), 1u);
    const StepMetrics& s = v1.steps[0];
    EXPECT_EQ(s.global_load.requests, 32u);
    EXPECT_EQ(s.global_load.sectors, 128u);
    EXPECT_EQ(s.global_load.ideal, 128u);
    EXPECT_EQ(s.global_store.requests, 32u);
    EXPECT_EQ(s.global_store.sectors, 1024u);
    EXPECT_EQ(s.global_store.ideal, 128u);
    EXPECT_EQ(s.shared_load.requests + s.shared_store.requests, 0u);
}

// v2 (32×32 threads, tile[32][32]). Step 0 (ends at the barrier): warp w
//   reads in[w][0..31] (4 sectors) and stores tile[w][lane], word 32w + lane,
//   bank lane: 32 banks, 1 wavefront. Step 1: warp w reads tile[lane][w],
//   word 32·lane + w, bank w for every lane: 32 distinct words in one bank,
//   32 wavefronts (ideal 1): 32-way. It writes out[w][0..31] (block 0's
//   tile is on the diagonal): 4 sectors. Per step 32 requests of each kind:
//   tile reads 32 × 32 = 1024 wavefronts; global stores 32 × 4 = 128 sectors.
TEST(TransposeMetrics, V2CoalescesAndPaysInBanks)
{
    const TracedRun v2 = trace_of("v2");
    ASSERT_EQ(v2.steps.size(), 2u);
    const StepMetrics &load = v2.steps[0], &store = v2.steps[1];
    EXPECT_EQ(load.global_load.requests, 32u);
    EXPECT_EQ(load.global_load.sectors, 128u);
    EXPECT_EQ(load.shared_store.requests, 32u);
    EXPECT_EQ(load.shared_store.wavefronts, 32u);
    EXPECT_EQ(load.shared_store.worst_ways, 1.0);
    EXPECT_EQ(store.shared_load.requests, 32u);
    EXPECT_EQ(store.shared_load.wavefronts, 1024u);
    EXPECT_EQ(store.shared_load.ideal, 32u);
    expect_every_load_ways(store, 32.0);
    EXPECT_EQ(store.global_store.requests, 32u);
    EXPECT_EQ(store.global_store.sectors, 128u);
    EXPECT_EQ(store.global_store.ideal, 128u);
}

// v3 (tile[32][33]): word (r, c) = 33r + c, bank (r + c) mod 32. The store
//   tile[w][lane] hits banks (w + lane) mod 32, the read tile[lane][w] banks
//   (lane + w) mod 32: 32 distinct banks either way, 1 wavefront each:
//   32 wavefronts per step (was 1024 for the read in v2). Global as in v2.
TEST(TransposeMetrics, V3PaddingRemovesTheConflict)
{
    const TracedRun v3 = trace_of("v3");
    ASSERT_EQ(v3.steps.size(), 2u);
    const StepMetrics &load = v3.steps[0], &store = v3.steps[1];
    EXPECT_EQ(load.shared_store.wavefronts, 32u);
    EXPECT_EQ(load.shared_store.worst_ways, 1.0);
    EXPECT_EQ(store.shared_load.requests, 32u);
    EXPECT_EQ(store.shared_load.wavefronts, 32u);
    expect_every_load_ways(store, 1.0);
    EXPECT_EQ(load.global_load.sectors, 128u);
    EXPECT_EQ(store.global_store.sectors, 128u);
}

// v4 (32×8 threads = 8 warps, 4 rows each: i = 0, 8, 16, 24). Warp w moves
//   rows i + w: per direction 8 warps × 4 = 32 requests, the same count as
//   v3's 32 warps × 1, each with v3's pattern: 4 sectors (128 in all) and
//   1 wavefront (32 in all). Threads: 256 instead of 1024.
TEST(TransposeMetrics, V4MovesFourRowsPerThread)
{
    const TracedRun v4 = trace_of("v4");
    EXPECT_EQ(v4.block.threads, 256u);
    ASSERT_EQ(v4.steps.size(), 2u);
    const StepMetrics &load = v4.steps[0], &store = v4.steps[1];
    EXPECT_EQ(load.active_threads, 256u);
    EXPECT_EQ(load.global_load.requests, 32u);
    EXPECT_EQ(load.global_load.sectors, 128u);
    EXPECT_EQ(load.shared_store.wavefronts, 32u);
    EXPECT_EQ(store.shared_load.requests, 32u);
    EXPECT_EQ(store.shared_load.wavefronts, 32u);
    EXPECT_EQ(store.global_store.requests, 32u);
    EXPECT_EQ(store.global_store.sectors, 128u);
}

// v5's rule: 64-row tiles where in and out together exceed 50 MiB, v4's
// 32×32 where they fit. 2048²: 2·2048²·4 B = 32 MiB, fits. 8192²: 512 MiB.
// 2560²: 2·6,553,600·4 = 52,428,800 B, exactly 50 MiB: fits; one column more
// does not. At 64×64 (the trace default) v5 is v4: the same steps as above.
TEST(TransposeMetrics, V5TakesTallTilesOnlyBeyondL2)
{
    EXPECT_EQ(transpose::V5::tile_rows(2048, 2048), 32u);
    EXPECT_EQ(transpose::V5::tile_rows(8192, 8192), 64u);
    EXPECT_EQ(transpose::V5::tile_rows(2560, 2560), 32u);
    EXPECT_EQ(transpose::V5::tile_rows(2560, 2561), 64u);
    const TracedRun v5 = trace_of("v5");
    ASSERT_EQ(v5.steps.size(), 2u);
    EXPECT_EQ(v5.steps[0].global_load.requests, 32u);
    EXPECT_EQ(v5.steps[1].global_store.requests, 32u);
}

// v5 beyond L2, at 2560×2592 (rows of in 2592 floats = 81 lines, rows of out
// 2560 = 80 lines: every warp's 32 floats start on a line). Block 0 is a
// 64×32 tile, 32×8 threads. Step 0: warp w loads rows i + w, i = 0, 8, …, 56:
// 8 × 8 = 64 requests of 32 contiguous floats, 4 sectors each (256), and
// stores tile[i + w][lane], bank (33(i + w) + lane) mod 32 = (i + w + lane)
// mod 32: 32 banks, 1 wavefront (64). Step 1: warp w writes rows i + w of out
// (i = 0, 8, 16, 24), each in two pieces of 32 floats (j = 0, 32): 4 × 2 = 8
// per warp, 64 requests, 4 sectors each (256); it reads tile[j + lane][i + w],
// bank (j + lane + i + w) mod 32: 1 wavefront (64). Twice v4's requests per
// block, for twice its elements.
TEST(TransposeMetrics, V5BeyondL2MovesA64By32Tile)
{
    const TracedRun v5 = trace_version(transpose_lab(), cpu_request("v5", {2560, 2592}));
    ASSERT_TRUE(v5.result.ok) << v5.result.check;
    EXPECT_EQ(v5.block.threads, 256u);
    ASSERT_EQ(v5.steps.size(), 2u);
    const StepMetrics &load = v5.steps[0], &store = v5.steps[1];
    EXPECT_EQ(load.global_load.requests, 64u);
    EXPECT_EQ(load.global_load.sectors, 256u);
    EXPECT_EQ(load.shared_store.wavefronts, 64u);
    EXPECT_EQ(store.shared_load.requests, 64u);
    EXPECT_EQ(store.shared_load.wavefronts, 64u);
    expect_every_load_ways(store, 1.0);
    EXPECT_EQ(store.global_store.requests, 64u);
    EXPECT_EQ(store.global_store.sectors, 256u);
}

}  // namespace
}  // namespace warplab::test
