// The image lab's input: --image reads any PNG (its size is the picture's),
// and refuses in one line a missing file, a file that is not a PNG, and a
// PNG whose size is not the --size asked for; bad sizes and groups likewise.
// The lab declares it (Lab::inputs): the front ends' option and its help come
// from the declaration, and another lab refuses it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "image_test.h"
#include "labs/common/lab_options.h"
#include "labs/common/png_io.h"
#include "labs/image/run.h"

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
        req.inputs[image::kPictureInput] = path;
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
    req.inputs[image::kPictureInput] = temp_path("missing.png");
    EXPECT_NE(refusal(req).find("cannot open"), std::string::npos) << refusal(req);

    const std::string text = temp_path("not_a_png.png");
    std::ofstream(text) << "P3\n2 2\n255\n";  // a PPM, named .png
    req.inputs[image::kPictureInput] = text;
    EXPECT_NE(refusal(req).find("is not a PNG file"), std::string::npos) << refusal(req);
    std::filesystem::remove(text);

    const std::string png = temp_path("3x2.png");
    write_png(png, RgbaImage{3, 2, std::vector<std::uint8_t>(3 * 2 * 4, 128)});
    req.inputs[image::kPictureInput] = png;
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

// The message of the std::invalid_argument `f` throws ("" if none).
template <class F> std::string refusal_of(F&& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

// A 37×23 PNG whose header is whole but whose pixel data is damaged: one
// byte of the IDAT chunk's data flipped, so its CRC no longer matches and
// libpng stops when it reads the pixels, after the header.
std::string damaged_png(const std::string& path)
{
    write_png(path, RgbaImage{37, 23, std::vector<std::uint8_t>(37 * 23 * 4, 200)});
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t idat = bytes.find("IDAT");
    EXPECT_NE(idat, std::string::npos);
    bytes[idat + 4 + 2] ^= 0x55;  // past the chunk type: its compressed data
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return path;
}

// Validation and device memory read a PNG's header alone: the damaged 37×23
// file passes validation, and its device bytes are 37·23 = 851 pixels × 4
// bytes × 2 (the pixels and their device copy) = 6808, "a 37×23 picture";
// the run, which decodes the pixels, refuses it in one line with libpng's reason.
TEST(ImageInput, ValidationReadsOnlyThePngHeader)
{
    const std::string path = damaged_png(temp_path("damaged.png"));
    EXPECT_THROW(read_png(path), std::runtime_error);
    const ImageSize header = read_png_size(path);
    EXPECT_EQ(header.width, 37u);
    EXPECT_EQ(header.height, 23u);

    RunRequest req = cpu_request("v1", {});
    req.inputs[image::kPictureInput] = path;
    EXPECT_NO_THROW(image::Description::validate<image::V1>(req));
    const DeviceBytes bytes = image::Description::device_bytes(req);
    EXPECT_EQ(bytes.bytes, 6808u);
    EXPECT_EQ(bytes.what, "a 37×23 picture");
    testing::internal::CaptureStderr();  // libpng's reason goes into the one line, not a line of its own
    const std::string refused = refusal(req);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_NE(refused.find("--image: cannot read " + path + " as a PNG file ("), std::string::npos) << refused;
    std::filesystem::remove(path);
}

// The seeded picture's size comes from the request: at 65536×65535
// (4,294,901,760 pixels, one row short of 2^32) the device bytes are
// 4,294,901,760 × 8 = 34,359,214,080, found without building the 17 GB
// picture (building it would take minutes, or fail for memory).
TEST(ImageInput, DeviceBytesOfASeededPictureBuildNoPicture)
{
    const DeviceBytes bytes = image::Description::device_bytes(cpu_request("v1", {65536, 65535}));
    EXPECT_EQ(bytes.bytes, 34359214080u);
    EXPECT_EQ(bytes.what, "a 65536×65535 picture");
    EXPECT_EQ(image::Description::device_bytes(cpu_request("v1", {})).bytes, 320u * 180 * 8);  // the trace default
}

// picture_size gives the size picture_for builds, and refuses what it
// refuses with the same line.
TEST(ImageInput, PictureSizeAgreesWithPictureFor)
{
    const std::string png = temp_path("5x3.png");
    write_png(png, RgbaImage{5, 3, std::vector<std::uint8_t>(5 * 3 * 4, 7)});
    const std::string text = temp_path("not_a_png.png");
    std::ofstream(text) << "P3\n2 2\n255\n";
    struct Case {
        std::string file;
        std::vector<std::size_t> size;
    };
    const Case fine[] = {{"", {37, 23}}, {"", {}}, {png, {}}, {png, {5, 3}}};
    for (const Case& c : fine) {
        const image::Picture built = image::picture_for(c.file, c.size, 320, 180, 1);
        const image::PictureSize size = image::picture_size(c.file, c.size, 320, 180);
        EXPECT_EQ(size.width, built.width) << c.file;
        EXPECT_EQ(size.height, built.height) << c.file;
    }
    const Case refused[] = {{"", {5}}, {"", {0, 5}}, {"", {70000, 70000}}, {temp_path("missing.png"), {}}, {text, {}}, {png, {1920, 1080}}};
    for (const Case& c : refused) {
        const std::string by_size = refusal_of([&] { image::picture_size(c.file, c.size, 320, 180); });
        EXPECT_FALSE(by_size.empty()) << c.file;
        EXPECT_EQ(by_size, refusal_of([&] { image::picture_for(c.file, c.size, 320, 180, 1); }));
    }
    std::filesystem::remove(png);
    std::filesystem::remove(text);
}

// The front ends' --image is the lab's declaration: one input of that name,
// declared by the image lab alone, its value PICTURE.png, its help for a trace
// and for a bench the lab's own words with the lab named.
TEST(ImageInput, TheOptionComesFromTheLabsDeclaration)
{
    const std::vector<DeclaredInput> declared = declared_inputs();
    const auto image = std::find_if(declared.begin(), declared.end(), [](const DeclaredInput& d) { return d.name == "image"; });
    ASSERT_NE(image, declared.end());
    EXPECT_EQ(image->value_name, "PICTURE.png");
    ASSERT_EQ(image->declarers.size(), 1u);
    EXPECT_EQ(image->declarers[0].first, &image_lab());
    EXPECT_EQ(input_help(*image, false), "image lab: reduce this PNG file instead of the seeded picture");
    EXPECT_EQ(input_help(*image, true), "image lab: time on this PNG file instead of the seeded 1080p picture");
}

// Another lab's run refuses the image lab's input in one line naming the lab
// that has it, as check_inputs does (the CLI's bench and the viewer call it
// before anything runs); the image lab's own check passes a 1×1 PNG and
// refuses it against a --size of 2×2; an input no lab declares is refused too.
// The viewer keeps inputs across labs: own_inputs gives each lab its own.
TEST(ImageInput, AnotherLabRefusesItInOneLine)
{
    const std::string png = temp_path("1x1.png");
    write_png(png, RgbaImage{1, 1, {10, 20, 30, 255}});
    const std::map<std::string, std::string> given{{image::kPictureInput, png}};
    const Lab& reduction = *find_lab("reduction");
    const std::string refused = "--image is the image lab's input, not the reduction lab's";
    EXPECT_EQ(refusal_of([&] { check_inputs(reduction, given, {}); }), refused);
    RunRequest req;
    req.version = "v1", req.n = 64, req.block = 64, req.backend = BackendChoice::Cpu, req.inputs = given;
    EXPECT_EQ(refusal_of([&] { reduction.run(req); }), refused);
    req.inputs.clear();
    EXPECT_EQ(refusal_of([&] { reduction.run(req); }), "");  // the same request without it runs

    EXPECT_EQ(refusal_of([&] { check_inputs(image_lab(), given, {}); }), "");
    EXPECT_EQ(refusal_of([&] { check_inputs(image_lab(), given, {2, 2}); }), "--image " + png + " is 1×1, not the --size 2×2 asked for");
    EXPECT_EQ(refusal_of([&] { check_inputs(image_lab(), {{"movie", "clip.mp4"}}, {}); }), "--movie is no lab's input");

    EXPECT_TRUE(own_inputs(reduction, given).empty());
    EXPECT_EQ(own_inputs(image_lab(), given), given);
    EXPECT_EQ(given_inputs({{"image", ""}, {"movie", "clip.mp4"}}), (std::map<std::string, std::string>{{"movie", "clip.mp4"}}));
    std::filesystem::remove(png);
}

}  // namespace
}  // namespace warplab::test
