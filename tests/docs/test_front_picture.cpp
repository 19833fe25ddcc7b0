// The README's picture (docs/images/viewer.png) shows what the viewer draws
// now: scripts/front-picture.sh, the one place that says which view it is,
// renders it again headless, and the two are compared cell by cell.
//
// A cell is 16×16 pixels; it differs when the mean of one of its channels moved
// by more than 8 of 255. The picture is current while at most 1 % of its cells
// differ: another font version's anti-aliasing, or a few pixels of padding, stays
// under that; a panel moved, resized, recoloured or showing other values is far
// over it (the picture at the next step differs in the cells checked below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "labs/common/png_io.h"

namespace {

namespace fs = std::filesystem;
using warplab::RgbaImage;

constexpr int kCell = 16;
constexpr int kChannelTolerance = 8;
constexpr double kMostDifferentCells = 0.01;

const fs::path kRepo = WARPLAB_SOURCE_DIR;
const fs::path kPicture = kRepo / "docs" / "images" / "viewer.png";

// The fraction of cells whose mean colour differs; 1 when the sizes differ.
double different_cells(const RgbaImage& a, const RgbaImage& b)
{
    if (a.width != b.width || a.height != b.height) return 1.0;
    int cells = 0, different = 0;
    for (int y0 = 0; y0 < a.height; y0 += kCell) {
        for (int x0 = 0; x0 < a.width; x0 += kCell) {
            long sum_a[4] = {}, sum_b[4] = {};
            int pixels = 0;
            for (int y = y0; y < std::min(y0 + kCell, a.height); ++y) {
                for (int x = x0; x < std::min(x0 + kCell, a.width); ++x, ++pixels) {
                    const std::size_t at = (static_cast<std::size_t>(y) * a.width + x) * 4;
                    for (int c = 0; c < 4; ++c) {
                        sum_a[c] += a.rgba[at + c];
                        sum_b[c] += b.rgba[at + c];
                    }
                }
            }
            bool differs = false;
            for (int c = 0; c < 4; ++c) differs |= std::abs(sum_a[c] - sum_b[c]) > long{kChannelTolerance} * pixels;
            ++cells;
            different += differs;
        }
    }
    return static_cast<double>(different) / cells;
}

// scripts/front-picture.sh's view, rendered now into a scratch file (at another step where one is named).
RgbaImage render_now(const std::string& name, const std::string& step = "")
{
    const fs::path out = fs::temp_directory_path() / ("warplab_front_picture_" + name + ".png");
    const std::string command = "bash '" + (kRepo / "scripts" / "front-picture.sh").string() + "' '" WARPLAB_VIEWER "' '" +
                                out.string() + "' " + step + " > /dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    RgbaImage image = warplab::read_png(out.string());
    fs::remove(out);
    return image;
}

TEST(FrontPicture, TheReadmeShowsItFirst)
{
    std::ifstream readme(kRepo / "README.md");
    std::string title, blank, picture;
    std::getline(readme, title);
    std::getline(readme, blank);
    std::getline(readme, picture);
    EXPECT_EQ(title, "# warplab");
    EXPECT_NE(picture.find("](docs/images/viewer.png)"), std::string::npos) << "README.md's third line: " << picture;
    EXPECT_TRUE(picture.starts_with("![")) << picture;
}

TEST(FrontPicture, IsWhatTheViewerDrawsNow)
{
    ASSERT_TRUE(fs::exists(kPicture)) << kPicture << " is missing: make it with bash scripts/front-picture.sh";
    const RgbaImage committed = warplab::read_png(kPicture.string());
    const RgbaImage now = render_now("now");
    ASSERT_EQ(committed.width, now.width);
    ASSERT_EQ(committed.height, now.height);
    EXPECT_LE(different_cells(committed, now), kMostDifferentCells)
        << "docs/images/viewer.png no longer shows what the viewer draws: redraw it with bash scripts/front-picture.sh";
}

// The comparison fails where it should: the view at another step, and a panel painted over; a few
// scattered pixels changed, as another font's rendering would, pass.
TEST(FrontPicture, TheComparisonTellsAStalePicture)
{
    const RgbaImage now = render_now("step3");
    EXPECT_GT(different_cells(now, render_now("step2", "2")), kMostDifferentCells);

    RgbaImage painted = now;  // a 320×180 panel (4 % of 1600×900) painted mid-grey
    for (int y = 100; y < 280; ++y)
        for (int x = 400; x < 720; ++x)
            for (int c = 0; c < 3; ++c) painted.rgba[(static_cast<std::size_t>(y) * now.width + x) * 4 + c] = 128;
    EXPECT_GT(different_cells(now, painted), kMostDifferentCells);

    RgbaImage speckled = now;  // one pixel in 10240 inverted: a cell's mean moves by at most 255/256
    for (std::size_t at = 0; at < speckled.rgba.size(); at += 4 * 10240) speckled.rgba[at] = 255 - speckled.rgba[at];
    EXPECT_EQ(different_cells(now, speckled), 0.0);
    EXPECT_EQ(different_cells(now, now), 0.0);
}

}  // namespace
