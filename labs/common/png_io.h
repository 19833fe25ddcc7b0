// RGBA images as PNG files (libpng): the viewer's screenshots and a lab's
// picture given as its input (Lab::Input).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warplab {

struct RgbaImage {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;  // row-major, 4 bytes a pixel
};

// Throws std::runtime_error with one sentence naming the file when it cannot
// be written, opened or read as a PNG (any colour type: grey, palette and
// 16-bit channels become 8-bit RGBA, opaque where the file has no alpha).
void write_png(const std::string& path, const RgbaImage& image);
RgbaImage read_png(const std::string& path);

// A PNG file's width and height from its header (libpng's png_read_info),
// without decoding a pixel; the same errors as read_png for a file that
// cannot be opened, is not a PNG or has a broken header.
struct ImageSize {
    std::size_t width = 0, height = 0;
};
ImageSize read_png_size(const std::string& path);

}  // namespace warplab
