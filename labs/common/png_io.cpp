#include "labs/common/png_io.h"

#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace warplab {

namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File open(const std::string& path, const char* mode)
{
    File f(std::fopen(path.c_str(), mode), &std::fclose);
    if (!f) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    return f;
}

}  // namespace

void write_png(const std::string& path, const RgbaImage& image)
{
    File f = open(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw std::runtime_error("cannot write " + path);
    }
    png_init_io(png, f.get());
    png_set_compression_level(png, 3);  // a UI image compresses well already; speed matters for the tour
    png_set_IHDR(png, info, png_uint_32(image.width), png_uint_32(image.height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_set_filler(png, 0, PNG_FILLER_AFTER);  // rows are RGBA in memory, RGB in the file
    for (int y = 0; y < image.height; ++y)
        png_write_row(png, const_cast<png_bytep>(image.rgba.data() + std::size_t(y) * image.width * 4));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
}

namespace {

// Opens `path` as a PNG, reads its header and calls body(png, info) to read
// on. libpng reports an error by longjmp to the setjmp here, so body keeps no
// object with a destructor of its own: what it fills lives in its caller.
// libpng's reason for a failed read is kept for the one-line message (its
// default handler prints a line of its own); warnings are not the user's concern.
void keep_error(png_structp png, png_const_charp message)
{
    *static_cast<std::string*>(png_get_error_ptr(png)) = message;
    png_longjmp(png, 1);
}
void ignore_warning(png_structp, png_const_charp) {}

template <class Body> void read_png_with(const std::string& path, Body&& body)
{
    File f = open(path, "rb");
    png_byte signature[8] = {};
    if (std::fread(signature, 1, 8, f.get()) != 8 || png_sig_cmp(signature, 0, 8) != 0)
        throw std::runtime_error(path + " is not a PNG file");
    std::string reason;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reason, keep_error, ignore_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        throw std::runtime_error("cannot read " + path + " as a PNG file" + (reason.empty() ? "" : " (" + reason + ")"));
    }
    png_init_io(png, f.get());
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    body(png, info);
    png_destroy_read_struct(&png, &info, nullptr);
}

}  // namespace

RgbaImage read_png(const std::string& path)
{
    RgbaImage img;
    read_png_with(path, [&img](png_structp png, png_infop info) {
        png_set_expand(png);
        png_set_strip_16(png);
        png_set_gray_to_rgb(png);
        png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
        png_read_update_info(png, info);
        img.width = int(png_get_image_width(png, info));
        img.height = int(png_get_image_height(png, info));
        img.rgba.resize(std::size_t(img.width) * img.height * 4);
        for (int y = 0; y < img.height; ++y) png_read_row(png, img.rgba.data() + std::size_t(y) * img.width * 4, nullptr);
        png_read_end(png, nullptr);
    });
    return img;
}

ImageSize read_png_size(const std::string& path)
{
    ImageSize size;
    read_png_with(path, [&size](png_structp png, png_infop info) {
        size.width = png_get_image_width(png, info);
        size.height = png_get_image_height(png, info);
    });
    return size;
}

}  // namespace warplab
