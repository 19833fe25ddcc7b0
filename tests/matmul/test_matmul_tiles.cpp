// v8's choice of tiles by size (labs/matmul/versions.h: choose_tiles, v8's
// three configurations), and each configuration's kernel on the emulator.
//
// The rule: the largest tiles whose grid gives every SM at least one block;
// where none does, the smallest. v8's configurations: 128×128 (BK 16),
// 128×64 (BK 16), 64×64 (BK 32). Every expected choice below is derived by
// hand beside it.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "emulator/helpers.h"
#include "labs/common/make_lab.h"
#include "labs/matmul/run.h"
#include "warplab/occupancy.h"

namespace warplab::test {
namespace {

// "128×64": the block tile of the configuration v8 runs for M×N on `sms` SMs.
std::string v8_choice(std::size_t m, std::size_t n, unsigned sms)
{
    std::string out;
    matmul::with_tiles<matmul::V8>(m, n, sms, [&](auto config) {
        constexpr matmul::Tiles t = decltype(config)::tiles;
        out = std::to_string(t.bm) + "×" + std::to_string(t.bn);
    });
    return out;
}

TEST(MatmulTileRule, TakesTheLargestTilesThatFillEverySm)
{
    // Blocks of 128×128, 128×64 and 64×64 tiles, against 132 SMs:
    // 1024×1024: 64, 128, 256: only 64×64 fills.
    EXPECT_EQ(v8_choice(1024, 1024, 132), "64×64");
    // 1280×1280: 100, 200, 400: 128×64 is the largest that fills.
    EXPECT_EQ(v8_choice(1280, 1280, 132), "128×64");
    // 1408×1408: 11·11 = 121, 11·22 = 242: 128×64; 1409×1409: 12·12 = 144.
    EXPECT_EQ(v8_choice(1408, 1408, 132), "128×64");
    EXPECT_EQ(v8_choice(1409, 1409, 132), "128×128");
    // 2048×2048: 256; 4096×4096: 1024; 8192×8192: 4096: 128×128 fills.
    EXPECT_EQ(v8_choice(2048, 2048, 132), "128×128");
    EXPECT_EQ(v8_choice(4096, 4096, 132), "128×128");
    EXPECT_EQ(v8_choice(8192, 8192, 132), "128×128");
    // 512×512: 16, 32, 64: none fills; the smallest tiles leave fewest idle.
    EXPECT_EQ(v8_choice(512, 512, 132), "64×64");
    // Non-square, partial tiles: 4097×31 is 33×1 blocks of 128×128 or
    // 128×64, 65×1 of 64×64: none fills: 64×64. 4097×4097: 33·33 = 1089.
    EXPECT_EQ(v8_choice(4097, 31, 132), "64×64");
    EXPECT_EQ(v8_choice(4097, 4097, 132), "128×128");
    // A wide C: 128×8192 is 1·64 blocks of 128×128 (too few), 1·128 of
    // 128×64 (too few), 2·128 = 256 of 64×64.
    EXPECT_EQ(v8_choice(128, 8192, 132), "64×64");
    // The trace default, 64×64: one block whichever the tiles.
    EXPECT_EQ(v8_choice(matmul::V8::trace_m, matmul::V8::trace_n, 132), "64×64");
}

TEST(MatmulTileRule, DependsOnTheSmCount)
{
    // 1024×1024 on 108 SMs (an A100): 64 blocks of 128×128 (too few), 128
    // of 128×64: 128×64; on 64 SMs 128×128 fills; on 132 (above) only 64×64.
    EXPECT_EQ(v8_choice(1024, 1024, 108), "128×64");
    EXPECT_EQ(v8_choice(1024, 1024, 64), "128×128");
    EXPECT_EQ(v8_choice(1024, 1024, 65), "128×64");
    // One block fills one SM; no SM count (0) is filled by any launch.
    EXPECT_EQ(v8_choice(128, 128, 1), "128×128");
    EXPECT_EQ(v8_choice(1024, 1024, 0), "128×128");
}

// Rules that look plausible and are not this one each get one of these wrong:
// "always the largest tiles" (1024×1024), "always the smallest" (4096×4096),
// "the fewest elements of C on the busiest SM, the larger tiles on a tie"
// (8192×8192: ceil(4096/132) = 32 tiles of 128×128 make 524288 elements,
// ceil(16384/132) = 125 tiles of 64×64 only 512000, so it would take 64×64).
TEST(MatmulTileRule, OtherRulesDisagree)
{
    struct Case {
        std::size_t m, n;
        std::string expected;
    };
    const Case cases[] = {{1024, 1024, "64×64"}, {4096, 4096, "128×128"}, {8192, 8192, "128×128"}, {1280, 1280, "128×64"}};
    for (const Case& c : cases) EXPECT_EQ(v8_choice(c.m, c.n, 132), c.expected) << c.m << "×" << c.n;

    using Rule = std::function<std::string(const Case&)>;
    const Rule largest = [](const Case&) { return std::string("128×128"); };
    const Rule smallest = [](const Case&) { return std::string("64×64"); };
    const Rule busiest_sm = [](const Case& c) {
        std::string pick;
        std::size_t fewest = 0;
        for (const auto& [bm, bn, name] : {std::tuple<unsigned, unsigned, const char*>{64, 64, "64×64"},
                                           {128, 64, "128×64"}, {128, 128, "128×128"}}) {
            const std::size_t blocks = std::size_t(matmul::ceil_div(c.m, bm)) * matmul::ceil_div(c.n, bn);
            const std::size_t elements = (blocks + 131) / 132 * bm * bn;
            if (pick.empty() || elements <= fewest) pick = name, fewest = elements;
        }
        return pick;
    };
    for (const Rule& rule : {largest, smallest, busiest_sm}) {
        bool disagrees = false;
        for (const Case& c : cases) disagrees |= rule(c) != c.expected;
        EXPECT_TRUE(disagrees);
    }
}

// One configuration's kernel on the emulator, launched with the grid of
// `GridTiles` (normally its own), C poisoned with NaN first; C comes back.
template <class Tiles, class GridTiles = Tiles>
std::vector<float> run_tiles(const matmul::Shape& s, const matmul::Inputs& in)
{
    Emulator emu;
    emu.options.record = false;
    EmulatorBackend be{emu, lab_module<matmul::Description>(), matmul::kKernels, kEmulatedMultiprocessors};
    const float* a = to_device(emu, in.a);
    const float* b = to_device(emu, in.b);
    float* c = to_device(emu, std::vector<float>(s.m * s.n, std::numeric_limits<float>::quiet_NaN()));
    be.launch(KernelInstance<matmul::V8, typename Tiles::template_args>{}, GridTiles::grid(s.m, s.n), Tiles::block(), a, b, c,
              unsigned(s.m), unsigned(s.n), unsigned(s.k));
    return to_host(emu, static_cast<const float*>(c), s.m * s.n);
}

matmul::Comparison check(const matmul::Shape& s, const matmul::Inputs& in, const std::vector<float>& c)
{
    const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
    return matmul::compare(c, ref.c, ref.abs, matmul::tolerance(s.k, false));
}

template <class Tiles> class MatmulTileConfig : public ::testing::Test {};
using Configs = ::testing::Types<matmul::Warptiles128x128, matmul::Warptiles128x64, matmul::Warptiles64x64>;
TYPED_TEST_SUITE(MatmulTileConfig, Configs);

// Every configuration, whichever size the rule would give it: partial tiles
// everywhere with K and N odd (the scalar fallback), whole tiles with K a
// multiple of every BK (the unchecked float4 path for blocks inside A and
// B), and several blocks with a partial last row and column of them.
TYPED_TEST(MatmulTileConfig, MultipliesAnyShape)
{
    for (const matmul::Shape s : {matmul::Shape{67, 45, 33}, matmul::Shape{128, 128, 64}, matmul::Shape{200, 136, 96},
                                  matmul::Shape{1, 1, 1}}) {
        SCOPED_TRACE(s.text());
        const matmul::Inputs in = matmul::make_inputs(s, 11);
        const matmul::Comparison cmp = check(s, in, run_tiles<TypeParam>(s, in));
        EXPECT_TRUE(cmp.ok) << cmp.text();
    }
}

// The check catches a launch that does less than asked: the 128×64 kernel on
// the grid of 128×128 tiles (2×1 blocks for 128×256) covers columns 0-127
// only, so columns 128-255 of C stay NaN.
TEST(MatmulV8Tiles, AGridTooSmallForTheTilesFails)
{
    const matmul::Shape s{128, 256, 32};
    const matmul::Inputs in = matmul::make_inputs(s, 3);
    const matmul::Comparison cmp = check(s, in, run_tiles<matmul::Warptiles128x64, matmul::Warptiles128x128>(s, in));
    EXPECT_FALSE(cmp.ok);
    EXPECT_EQ(cmp.bad, s.m * s.n / 2) << "columns 128-255 of C are never written";
}

// The lab runs v8 with the rule's tiles on the emulator's 132 SMs, and says
// which: K = 1 keeps the emulator's work small at sizes where the rule picks
// each configuration (1536×1536: 128×128, 12×12 blocks; 1280×1280: 128×64,
// 20×10 blocks; the trace default 64×64×64: 64×64, one block).
TEST(MatmulV8Tiles, TheLabRunsAndNamesTheRulesTiles)
{
    struct Case {
        std::vector<std::size_t> shape;
        unsigned grid_x, grid_y;
        const char* tiles;
    };
    const Case cases[] = {{{1536, 1536, 1}, 12, 12, "each a 128×128 tile of C (BK = 16, warp tiles 64×64, 8×16 per lane;"},
                          {{1280, 1280, 1}, 20, 10, "each a 128×64 tile of C (BK = 16, warp tiles 64×32, 8×8 per lane;"},
                          {{}, 1, 1, "each a 64×64 tile of C (BK = 32, warp tiles 32×32, 4×8 per lane;"}};
    for (const Case& c : cases) {
        RunRequest req = emulator_request("v8", 0, 0, "float", Schedule::Independent);
        req.shape = c.shape;
        req.record = false;
        const RunResult r = find_lab("matmul")->run(req);
        SCOPED_TRACE(r.problem);
        EXPECT_TRUE(r.ok) << r.check;
        EXPECT_EQ(r.grid_dim[0], c.grid_x);
        EXPECT_EQ(r.grid_dim[1], c.grid_y);
        EXPECT_TRUE(contains(r.problem, c.tiles));
        EXPECT_TRUE(contains(r.problem, "of v8's 3 tile configurations, the one for this size on 132 SMs"));
    }
}

// ptxas's report holds each configuration's registers and shared memory, and
// `warplab occupancy` shows v8 as its 128×128 instance (the tiles of the large
// sizes), which ptxas reports first; its shared memory is 2 stages × 16 ×
// (132 + 128) floats = 33280 bytes.
TEST(MatmulV8Tiles, OccupancyShowsTheLargestTiles)
{
    const wl::occupancy::LaunchUsage launch =
        wl::occupancy::launch_usage("matmul", "matmul_warptiled", matmul::V8::threads, "float");
    ASSERT_NE(launch.instance, nullptr);
    EXPECT_EQ(launch.instance->entry,
              entry_name(matmul::kKernels, KernelInstance<matmul::V8, matmul::Warptiles128x128::template_args>{}));
    EXPECT_EQ(launch.instance->shared_static, 2u * 16 * (132 + 128) * 4);
    std::size_t reported = 0;
    for (const wl::occupancy::KernelResources& k : *wl::occupancy::lab_resources("matmul"))
        reported += k.entry.starts_with("warplab::matmul::matmul_warptiled<");
    EXPECT_EQ(reported, std::tuple_size_v<matmul::V8::tile_choices>);
}

}  // namespace
}  // namespace warplab::test
