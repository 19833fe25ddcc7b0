// The image lab's input: --image reads any PNG (its size is the picture's),
// and refuses in one line a missing file, a file that is not a PNG, and a
// PNG whose size is not the --size asked for; bad sizes and groups likewise.
#include <filesystem>
#include <fstream>

#include "image_test.h"
#include "labs/common/png_io.h"

namespace warplab::test {
namespace {

std::string temp_path(const std::string& name)
{
    return (std::filesystem::temp_directory_path() / ("warplab_image_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

// The message of the std::invalid_argument `req` throws ("" if none).
std::string refusal(const RunRequest& req)
{
    try {
        image_lab().run(req);
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
        return m;
    }
    return "";
}

// A 2×2 PNG: red, green / blue, white. Luminances 0.2125, 0.7154 / 0.0721,
// 0.2125 + 0.7154 + 0.0721 = 1: sum 2, mean 0.5 (alpha, written as none and
// read back as 255, does not count).
TEST(ImageInput, APngFileIsReducedAsItIs)
{
    const std::string path = temp_path("2x2.png");
    write_png(path, RgbaImage{2, 2, {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255}});
    for (const char* version : {"v1", "v3", "v6"}) {
        RunRequest req = cpu_request(version, {});
        req.image = path;
        const RunResult r = image_lab().run(req);
        EXPECT_TRUE(r.ok) << r.check;
        EXPECT_NEAR(r.expected, 0.5, 1e-12);
        EXPECT_NEAR(r.value, 0.5, 1e-6);
        EXPECT_EQ(r.shape, (std::vector<std::size_t>{2, 2}));
    }
    std::filesystem::remove(path);
}

TEST(ImageInput, BadFilesAreRefusedInOneLine)
{
    RunRequest req = cpu_request("v2", {});
    req.image = temp_path("missing.png");
    EXPECT_NE(refusal(req).find("cannot open"), std::string::npos) << refusal(req);

    const std::string text = temp_path("not_a_png.png");
    std::ofstream(text) << "P3\n2 2\n255\n";  // a PPM, named .png
    req.image = text;
    EXPECT_NE(refusal(req).find("is not a PNG file"), std::string::npos) << refusal(req);
    std::filesystem::remove(text);

    const std::string png = temp_path("3x2.png");
    write_png(png, RgbaImage{3, 2, std::vector<std::uint8_t>(3 * 2 * 4, 128)});
    req.image = png;
    req.shape = {1920, 1080};
    EXPECT_NE(refusal(req).find("is 3×2, not the --size 1920×1080"), std::string::npos) << refusal(req);
    std::filesystem::remove(png);
}

TEST(ImageInput, BadSizesAndGroupsAreRefusedInOneLine)
{
    EXPECT_NE(refusal(cpu_request("v1", {0, 5})).find("has no pixels"), std::string::npos);
    EXPECT_NE(refusal(cpu_request("v1", {5})).find("WIDTH,HEIGHT"), std::string::npos);
    EXPECT_NE(refusal(cpu_request("v1", {70000, 70000})).find("2^32 pixels"), std::string::npos);
    RunRequest req = cpu_request("v3-wave64", {37, 23});
    req.block_dim = {8, 8};  // the 64-thread tail needs 128 threads
    EXPECT_NE(refusal(req).find("built for the groups"), std::string::npos) << refusal(req);
    req = cpu_request("v1", {37, 23});
    req.block = 64;  // a 1D block for a 2D lab
    EXPECT_NE(refusal(req).find("--block WxH"), std::string::npos) << refusal(req);
    req = cpu_request("v1", {37, 23});
    req.watched_block = 6;  // 3×2 groups: 0..5
    EXPECT_NE(refusal(req).find("watched block 6 does not exist"), std::string::npos) << refusal(req);
}

}  // namespace
}  // namespace warplab::test
