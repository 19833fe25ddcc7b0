// v8's choice of tiles by size (labs/matmul/versions.h: choose_tiles, v8's
// three configurations), and each configuration's kernel on the emulator.
//
// The rule: a launch lasts as long as its busiest SM, which computes
// ceil(blocks / SMs) tiles of BM×BN elements; take the configuration that
// leaves it the fewest elements, the larger tiles on a tie. v8's
// configurations: 128×128 (BK 16), 128×64 (BK 16), 64×64 (BK 32). Every
// expected choice below is derived by hand beside it.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "emulator/helpers.h"
#include "labs/common/emulator_backend.h"
#include "labs/matmul/driver.h"
#include "labs/matmul/lab.h"
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

TEST(MatmulTileRule, PicksByTheBusiestSmsWork)
{
    // 1024×1024 on 132 SMs: 64 blocks of 128×128 (busiest SM: 1 tile, 16384
    // elements), 128 of 128×64 (1 tile, 8192), 256 of 64×64 (2 tiles, 8192):
    // a tie between the smaller two, so the larger of them.
    EXPECT_EQ(v8_choice(1024, 1024, 132), "128×64");
    // 4096×4096: 1024, 2048, 4096 blocks; ceil(/132) = 8, 16, 32 tiles;
    // 8·16384 = 16·8192 = 32·4096 = 131072 each: a tie of all three.
    EXPECT_EQ(v8_choice(4096, 4096, 132), "128×128");
    // 2048×2048: 256, 512, 1024 blocks; 2, 4, 8 tiles: 32768 each.
    EXPECT_EQ(v8_choice(2048, 2048, 132), "128×128");
    // 3072×3072: 576, 1152, 2304 blocks; 5, 9, 18 tiles (132·4 = 528 < 576;
    // 132·8 = 1056 < 1152; 132·17 = 2244 < 2304): 81920, 73728, 73728.
    EXPECT_EQ(v8_choice(3072, 3072, 132), "128×64");
    // 512×512: 16, 32, 64 blocks, each SM at most one: 16384, 8192, 4096.
    EXPECT_EQ(v8_choice(512, 512, 132), "64×64");
    // 1280×1280: 100, 200, 400 blocks; 1, 2, 4 tiles: 16384 each.
    EXPECT_EQ(v8_choice(1280, 1280, 132), "128×128");
    // Non-square, partial tiles: 4097×31 is 33×1 blocks of 128×128 or of
    // 128×64, 65×1 of 64×64, one per SM at most: 16384, 8192, 4096.
    EXPECT_EQ(v8_choice(4097, 31, 132), "64×64");
    // The trace default, 64×64: one block whichever the tiles.
    EXPECT_EQ(v8_choice(matmul::V8::trace_m, matmul::V8::trace_n, 132), "64×64");
}

TEST(MatmulTileRule, DependsOnTheSmCount)
{
    // 1024×1024 on 16 SMs: 64, 128, 256 blocks; 4, 8, 16 tiles: 65536 each
    // (128×64 on 132 SMs, above: with fewer SMs the largest tiles fill them).
    EXPECT_EQ(v8_choice(1024, 1024, 16), "128×128");
    // On one SM every configuration of a product of whole tiles computes all of
    // C there: a tie. No SM count (0) counts as one.
    EXPECT_EQ(v8_choice(1024, 1024, 1), "128×128");
    EXPECT_EQ(v8_choice(1024, 1024, 0), "128×128");
    // 2048×1024 on 132 SMs: 128, 256, 512 blocks; 1, 2, 4 tiles: 16384 each;
    // on 108 SMs (an A100): 2, 3, 5 tiles: 32768, 24576, 20480.
    EXPECT_EQ(v8_choice(2048, 1024, 132), "128×128");
    EXPECT_EQ(v8_choice(2048, 1024, 108), "64×64");
}

// Rules that look plausible and are not this one each get one of these wrong:
// "always the largest tiles" (1024×1024), "always the smallest" (4096×4096),
// "the largest tiles that leave no SM idle, else the smallest" (1024×1024:
// 128×64 makes 128 blocks for 132 SMs, so it would take 64×64).
TEST(MatmulTileRule, OtherRulesDisagree)
{
    struct Case {
        std::size_t m, n;
        std::string expected;
    };
    const Case cases[] = {{1024, 1024, "128×64"}, {4096, 4096, "128×128"}, {2048, 2048, "128×128"}, {512, 512, "64×64"}};
    for (const Case& c : cases) EXPECT_EQ(v8_choice(c.m, c.n, 132), c.expected) << c.m << "×" << c.n;

    using Rule = std::function<std::string(const Case&)>;
    const Rule largest = [](const Case&) { return std::string("128×128"); };
    const Rule smallest = [](const Case&) { return std::string("64×64"); };
    const Rule no_idle_sm = [](const Case& c) {
        if (std::size_t(matmul::ceil_div(c.m, 128)) * matmul::ceil_div(c.n, 128) >= 132) return std::string("128×128");
        if (std::size_t(matmul::ceil_div(c.m, 128)) * matmul::ceil_div(c.n, 64) >= 132) return std::string("128×64");
        return std::string("64×64");
    };
    for (const Rule& rule : {largest, smallest, no_idle_sm}) {
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
    EmulatorBackend be{emu, matmul::ptx_module(), matmul::kKernels, kEmulatedMultiprocessors};
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
// each configuration (1280×1280: 128×128, 10×10 blocks; 1024×1024: 128×64,
// 16×8 blocks; the trace default 64×64×64: 64×64, one block).
TEST(MatmulV8Tiles, TheLabRunsAndNamesTheRulesTiles)
{
    struct Case {
        std::vector<std::size_t> shape;
        unsigned grid_x, grid_y;
        const char* tiles;
    };
    const Case cases[] = {{{1280, 1280, 1}, 10, 10, "each a 128×128 tile of C (BK = 16, warp tiles 64×64, 8×16 per lane;"},
                          {{1024, 1024, 1}, 16, 8, "each a 128×64 tile of C (BK = 16, warp tiles 64×32, 8×8 per lane;"},
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
