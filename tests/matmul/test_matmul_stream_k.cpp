// v13 (stream-K, kernels/matmul/13_stream_k.cuh) on the emulator, with as
// few SMs as make each way of sharing out the tiles happen at a size the
// emulator runs quickly. v13's tiles are v9's, 128×256 with BK = 16; "depth"
// is a tile's number of k-tiles, ceil(K / 16). With G blocks (one per SM,
// at most the number of k-tiles; with fewer tiles than that, a multiple of
// the tiles where it idles at most G/16 of them), the kernel shares out by k-tile: no tile
// when the tiles are a multiple of G, or when tiles % G >= G - G/16 (a last
// wave nearly full); all of them when there are fewer than 2G; else
// G + tiles % G of them. The other tiles go whole. Where none is shared out,
// the launch is v9's kernel in v9's grid (one block per tile).
#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "emulator/helpers.h"
#include "labs/common/make_lab.h"
#include "labs/matmul/run.h"

namespace warplab::test {
namespace {

using matmul::V13;

// The kernel's argument positions (A, B, C, M, N, K, partial, arrived).
constexpr std::uint8_t kArgA = 0, kArgPartial = 6;

struct V13Run {
    std::vector<float> c;
    std::vector<wl::trace::LaneRecord> records;  // of the watched block, when one is
};

// v13 on an emulator of `sms` SMs, C poisoned with NaN; `launches` launches on
// one backend (so on one workspace), each on a freshly poisoned C.
V13Run run_v13(const matmul::Shape& s, const matmul::Inputs& in, unsigned sms, int watched = -1, int launches = 1)
{
    Emulator emu;
    emu.options.record = watched >= 0;
    if (watched >= 0) emu.options.watched_blocks = {static_cast<std::uint32_t>(watched)};
    EmulatorBackend be{emu, lab_module<matmul::Description>(), matmul::kKernels, sms};
    const float* a = to_device(emu, in.a);
    const float* b = to_device(emu, in.b);
    const std::vector<float> poison(s.m * s.n, std::numeric_limits<float>::quiet_NaN());
    float* c = to_device(emu, poison);
    for (int i = 0; i < launches; ++i) {
        emu.copy_to_device(c, poison.data(), poison.size());
        matmul::multiply_on<V13>(be, a, b, c, s);
    }
    return {to_host(emu, static_cast<const float*>(c), s.m * s.n), emu.take_records()};
}

matmul::Comparison check(const matmul::Shape& s, const matmul::Inputs& in, const std::vector<float>& c)
{
    const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
    return matmul::compare(c, ref.c, ref.abs, matmul::tolerance(s.k, false));
}

TEST(MatmulStreamK, GridIsOneBlockPerSmAndNoMoreThanTheKTiles)
{
    // 4096³: 132 SMs, 16·32 = 512 tiles of 256 k-tiles: 132 blocks.
    EXPECT_EQ(V13::grid(4096, 4096, 4096, 132).x, 132u);
    // 128×256×48: one tile of 3 k-tiles: 3 blocks, whatever the SMs.
    EXPECT_EQ(V13::grid(128, 256, 48, 132).x, 3u);
    // 300×500×77: 3·2 = 6 tiles of ceil(77/16) = 5 k-tiles: 30 < 132.
    EXPECT_EQ(V13::grid(300, 500, 77, 132).x, 30u);
    EXPECT_EQ(V13::grid(300, 500, 77, 7).x, 7u);
}

// Where the rule shares out nothing, the grid is v9's, (N / 256, M / 128).
// 2048³ on 132 SMs: 8·16 = 128 tiles, 128 % 132 = 128 >= 132 - 132/16 = 124.
// 256×768×48 on 3 SMs: 3·2 = 6 tiles, a multiple of G = 3; on 4 SMs, 6 % 4
// = 2 < 4 - 4/16 and 6 < 2·4, so all 6 are shared out by 4 blocks.
TEST(MatmulStreamK, WhereNoTileIsSharedOutTheGridIsV9s)
{
    const auto dims = [](dim3 g) { return std::vector<unsigned>{g.x, g.y, g.z}; };
    EXPECT_EQ(V13::shared_tiles(2048, 2048, 2048, 132), 0u);
    EXPECT_EQ(dims(V13::grid(2048, 2048, 2048, 132)), (std::vector<unsigned>{8, 16, 1}));
    EXPECT_EQ(V13::shared_tiles(256, 768, 48, 3), 0u);
    EXPECT_EQ(dims(V13::grid(256, 768, 48, 3)), (std::vector<unsigned>{3, 2, 1}));
    EXPECT_EQ(V13::shared_tiles(256, 768, 48, 4), 6u);
    EXPECT_EQ(dims(V13::grid(256, 768, 48, 4)), (std::vector<unsigned>{4, 1, 1}));
    // 4096³: 512 % 132 = 116 < 124, so 132 + 116 = 248 shared; 3072³: 12·24 =
    // 288 tiles, 288 % 132 = 24: 132 + 24 = 156; 1024³: 32 tiles < 264: all 32.
    EXPECT_EQ(V13::shared_tiles(4096, 4096, 4096, 132), 248u);
    EXPECT_EQ(V13::shared_tiles(3072, 3072, 3072, 132), 156u);
    EXPECT_EQ(V13::shared_tiles(1024, 1024, 1024, 132), 32u);
}

// Fewer tiles than SMs: a whole number of blocks per tile where that idles at
// most G/16 SMs. 1024³: 32 tiles, ⌊132/32⌋·32 = 128, 4 idle <= 132/16 = 8:
// 128 blocks, 2048/128 = 16 k-tiles each, one piece apiece. 300×500×77 on 7
// SMs: 6 tiles, 6 blocks would idle 1 > 7/16 = 0: 7. 128×512×256 on 17 SMs:
// 2 tiles, 16 blocks idle 1 <= 17/16 = 1: 16.
TEST(MatmulStreamK, FewerTilesThanSmsGetAWholeNumberOfBlocksEach)
{
    EXPECT_EQ(V13::blocks(1024, 1024, 1024, 132), 128u);
    EXPECT_EQ(V13::grid(1024, 1024, 1024, 132).x, 128u);
    EXPECT_EQ(V13::blocks(300, 500, 77, 7), 7u);
    EXPECT_EQ(V13::blocks(128, 512, 256, 17), 16u);
    EXPECT_EQ(V13::blocks(4096, 4096, 4096, 132), 132u);
}

// Every way of sharing out, with whole and partial tiles and k-tiles.
TEST(MatmulStreamK, MultipliesInEveryWayOfSharingOut)
{
    struct Case {
        matmul::Shape s;
        unsigned sms;
        const char* why;
    };
    const Case cases[] = {
        {{128, 256, 48}, 3, "1 tile of 3 k-tiles, G = 3: each block one k-tile of the same tile"},
        {{256, 768, 48}, 3, "2·3 = 6 tiles, G = 3: a multiple of G, every tile whole (none split)"},
        {{896, 256, 48}, 3, "7 tiles, G = 3: 3 + 7 % 3 = 4 split (12 k-tiles, 4 per block), 3 whole"},
        {{640, 256, 33}, 4, "5 tiles, G = 4 < 5 < 8: all 5 split, 5·3 = 15 k-tiles (3 or 4 per block)"},
        {{130, 300, 70}, 5, "2·2 = 4 partial tiles of 5 k-tiles (the last 6 deep), G = 5: 4 each"},
        {{67, 45, 500}, 132, "1 partial tile of 32 k-tiles, G = 32: every block one k-tile, 32 sums added"},
        {{128, 512, 256}, 17, "2 tiles of 16 k-tiles, 17 SMs: G = 16 (8 blocks a tile), 2 k-tiles each"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.s.text() + " on " + std::to_string(c.sms) + " SMs: " + c.why);
        const matmul::Inputs in = matmul::make_inputs(c.s, 5);
        const matmul::Comparison cmp = check(c.s, in, run_v13(c.s, in, c.sms).c);
        EXPECT_TRUE(cmp.ok) << cmp.text();
    }
}

// The last block of a split tile sets its counter back to zero, so a second
// launch on the same workspace finds the last block again. Were a counter
// left at 2, no block of that tile would see owners - 1 = 1 on its count,
// nobody would store the tile, and C would keep its NaN.
TEST(MatmulStreamK, ASecondLaunchOnTheSameWorkspaceIsRightToo)
{
    const matmul::Shape s{896, 256, 48};
    const matmul::Inputs in = matmul::make_inputs(s, 6);
    const matmul::Comparison cmp = check(s, in, run_v13(s, in, 3, -1, 2).c);
    EXPECT_TRUE(cmp.ok) << cmp.text();
}

// Records of one kind, space and kernel argument in a block's trace.
std::size_t count(const std::vector<wl::trace::LaneRecord>& records, wl::trace::Kind kind, std::uint8_t arg)
{
    std::size_t n = 0;
    for (const auto& r : records) n += r.kind == kind && r.space == wl::trace::Space::Global && r.array == arg;
    return n;
}

// Every block does the same number of k-tiles, which the trace counts: a
// k-tile of a 128×256 tile copies 128·16 = 2048 floats of A, each one
// 4-byte cp.async of one lane (A1 = 2048 / 256 threads = 8 per thread).
// 896×256×48 on 3 SMs: 7 tiles of 3 k-tiles. Split: 3 + 7 % 3 = 4 tiles,
// 12 k-tiles, 4 per block: block 0 takes tile 0 whole and k-tile 0 of tile 1;
// block 1 k-tiles 1-2 of tile 1 and 0-1 of tile 2; block 2 k-tile 2 of tile
// 2 and tile 3 whole. Whole: tiles 4, 5, 6, one per block. So every block
// does 4 + 3 = 7 k-tiles: 7·2048 = 14336 copies of A. (v9's schedule, whole
// tiles b, b + 3, …, gives blocks 3, 2 and 2 tiles: 9, 6 and 6 k-tiles.)
// A split piece leaves 128·256 sums, 32 float4 per thread: 8192 stores,
// one piece for blocks 0 and 2, two for block 1.
TEST(MatmulStreamK, EveryBlockDoesTheSameNumberOfKTiles)
{
    const matmul::Shape s{896, 256, 48};
    const matmul::Inputs in = matmul::make_inputs(s, 7);
    const std::size_t pieces[] = {1, 2, 1};
    for (int block = 0; block < 3; ++block) {
        SCOPED_TRACE("block " + std::to_string(block));
        const V13Run run = run_v13(s, in, 3, block);
        EXPECT_EQ(count(run.records, wl::trace::Kind::Load, kArgA), 7u * 2048);
        EXPECT_EQ(count(run.records, wl::trace::Kind::Store, kArgPartial), pieces[block] * 8192);
    }
}

// A last wave within G/16 of full is left whole: 128×3840×32 on 16 SMs is
// 15 tiles of 2 k-tiles; G = 15 (one block a tile, 1 <= 16/16 idle), a full
// wave, nothing shared out. So the launch is v9's:
// 15 blocks, one tile each (2·2048 = 4096 copies of A), and its kernel takes
// 6 arguments (no workspace: no store goes to argument 6). (Shared out, 16
// blocks would take 30/16, 1 or 2 k-tiles, and leave pieces.)
TEST(MatmulStreamK, ALastWaveNearlyFullIsNotSharedOut)
{
    const matmul::Shape s{128, 3840, 32};
    EXPECT_EQ(V13::grid(s.m, s.n, s.k, 16).x, 15u);
    const matmul::Inputs in = matmul::make_inputs(s, 8);
    for (const int block : {0, 14}) {
        SCOPED_TRACE("block " + std::to_string(block));
        const V13Run run = run_v13(s, in, 16, block);
        EXPECT_EQ(count(run.records, wl::trace::Kind::Load, kArgA), 4096u);
        EXPECT_EQ(count(run.records, wl::trace::Kind::Store, kArgPartial), 0u);
        const matmul::Comparison cmp = check(s, in, run.c);
        EXPECT_TRUE(cmp.ok) << cmp.text();
    }
}

}  // namespace
}  // namespace warplab::test
