// The image lab on the emulator, through the registry: every version a
// 32-wide warp runs right gives the CPU's mean luminance, and every partial
// of its first pass matches the CPU's sum of that group's tile, on the trace
// default (320×180, a partial last row of groups), odd sizes no group
// divides (37×23, 1×1, 1×40) and other groups (--block WxH).
#include <tuple>

#include "image_test.h"
#include "labs/image/problem.h"

namespace warplab::test {
namespace {

class ImageCorrect : public ::testing::TestWithParam<std::string> {};

TEST_P(ImageCorrect, MeanLuminanceAndEveryPartial)
{
    for (const std::vector<std::size_t>& size : {std::vector<std::size_t>{}, {37, 23}, {1, 1}, {1, 40}}) {
        const RunResult r = image_lab().run(cpu_request(GetParam(), size, 11));
        SCOPED_TRACE(r.problem);
        EXPECT_TRUE(r.ok) << r.check << "; mean " << r.value << ", expected " << r.expected;
        EXPECT_NE(r.check.find("partials of the first pass within tolerance"), std::string::npos) << r.check;
        ASSERT_FALSE(r.pass_grids.empty());
        EXPECT_EQ(r.pass_grids.back().values.size(), 1u);  // the later passes end at one value
    }
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, ImageCorrect, ::testing::ValuesIn(nvidia_version_ids()),
                         [](const auto& info) { return info.param; });

// The grid of partials follows the group's tile: for 1920×1080,
// v1 16×16 pixels → ceil(1920/16) × ceil(1080/16) = 120×68; v4 two fetches
// along x, 8×8 threads → 16×8 pixels → 120×135; v5 2×2 fetches, 4×4 threads →
// 8×8 pixels → 240×135; v6 8×8 threads → 16×16 pixels → 120×68. Checked at
// 37×23 instead (fast): v1 ceil(37/16) × ceil(23/16) = 3×2, v4 3×3, v5 5×3, v6 3×2;
// then the later pass shrinks 16 times each way: 1×1.
TEST(ImageGrid, PartialsFollowTheTile)
{
    const std::pair<const char*, std::pair<unsigned, unsigned>> cases[] = {{"v1", {3, 2}}, {"v4", {3, 3}}, {"v5", {5, 3}}, {"v6", {3, 2}}};
    for (const auto& [version, grid] : cases) {
        const RunResult r = image_lab().run(cpu_request(version, {37, 23}));
        ASSERT_EQ(r.pass_grids.size(), 2u) << version;
        EXPECT_EQ(r.pass_grids[0].width, grid.first) << version;
        EXPECT_EQ(r.pass_grids[0].height, grid.second) << version;
        EXPECT_EQ(r.grid_dim, (std::vector<unsigned>{grid.first, grid.second, 1})) << version;
    }
}

// v7's tile is 4·BX × 8·BY pixels (128×64 at 32×8), and its one launch
// leaves the partials and the sum after them (pass_grids: the partials, then
// 1×1). 300×150: ceil(300/128) × ceil(150/64) = 3×3, the last column 44
// pixels wide and the last row 22 high; 300 is a multiple of 4, so rows are
// read 16 bytes at a time; 301×150 (3×3 too) reads pixel by pixel. At 16×8
// threads the tile is 64×64: 5×3.
TEST(ImageGrid, V7OneLaunchOverItsTiles)
{
    const std::tuple<std::vector<std::size_t>, std::vector<unsigned>, unsigned, unsigned> cases[] = {
        {{300, 150}, {}, 3, 3}, {{301, 150}, {}, 3, 3}, {{300, 150}, {16, 8}, 5, 3}};
    for (const auto& [size, group, gx, gy] : cases) {
        RunRequest req = cpu_request("v7", size, 4);
        req.block_dim = group;
        const RunResult r = image_lab().run(req);
        SCOPED_TRACE(r.problem);
        EXPECT_TRUE(r.ok) << r.check;
        ASSERT_EQ(r.pass_grids.size(), 2u);
        EXPECT_EQ(r.grid_dim, (std::vector<unsigned>{gx, gy, 1}));
        EXPECT_EQ(r.pass_grids[1].values.size(), 1u);
    }
}

// Any group the kernels are built for: v3 below a warp (4×4: shuffles of
// width 16, no barrier), at one warp (8×4) and at 1024 threads (32×32: five
// barrier steps); v6 refuses a group that is no multiple of 64.
TEST(ImageGrid, OtherGroups)
{
    for (const std::vector<unsigned>& g : {std::vector<unsigned>{4, 4}, {8, 4}, {32, 32}, {16, 8}}) {
        RunRequest req = cpu_request("v3", {37, 23}, 5);
        req.block_dim = g;
        const RunResult r = image_lab().run(req);
        EXPECT_TRUE(r.ok) << g[0] << "x" << g[1] << ": " << r.check;
        EXPECT_EQ(r.threads_per_block, g[0] * g[1]);
    }
    RunRequest req = cpu_request("v6", {37, 23});
    req.block_dim = {4, 4};
    EXPECT_THROW(image_lab().run(req), std::invalid_argument);
    req.block_dim = {12, 12};  // not built
    EXPECT_THROW(image_lab().run(req), std::invalid_argument);
}

// The seed makes the picture: the same seed the same mean, another another.
TEST(ImageGrid, SeedsGiveDifferentPicturesTheSameSeedTheSame)
{
    const RunResult a = image_lab().run(cpu_request("v2", {37, 23}, 1));
    const RunResult b = image_lab().run(cpu_request("v2", {37, 23}, 1));
    const RunResult c = image_lab().run(cpu_request("v2", {37, 23}, 2));
    EXPECT_EQ(a.expected, b.expected);
    EXPECT_NE(a.expected, c.expected);
    EXPECT_GT(a.expected, 0.2);  // gradients from 0 to 255 and random blue: far from black and white
    EXPECT_LT(a.expected, 0.8);
}

}  // namespace
}  // namespace warplab::test
