#include "labs/image/picture.h"

#include <cstring>
#include <stdexcept>

#include "labs/common/png_io.h"

namespace warplab::image {

namespace {

Picture from_png(const std::string& file)
{
    RgbaImage png;
    try {
        png = read_png(file);
    } catch (const std::runtime_error& e) {
        throw std::invalid_argument(std::string("--image: ") + e.what());
    }
    Picture p{std::size_t(png.width), std::size_t(png.height), std::vector<Rgba8>(std::size_t(png.width) * png.height)};
    std::memcpy(p.pixels.data(), png.rgba.data(), png.rgba.size());
    return p;
}

void require_indexable(std::size_t width, std::size_t height, const std::string& what)
{
    if (width == 0 || height == 0) throw std::invalid_argument(what + " has no pixels");
    if (width > 0xFFFFFFFFu || height > 0xFFFFFFFFu || width * height > 0xFFFFFFFFu)
        throw std::invalid_argument(what + " has 2^32 pixels or more (the kernels index with 32 bits)");
}

}  // namespace

Picture picture_for(const std::string& file, const std::vector<std::size_t>& size, std::size_t default_width,
                    std::size_t default_height, std::uint64_t seed)
{
    if (!size.empty() && size.size() != 2) throw std::invalid_argument("an image size is WIDTH,HEIGHT (e.g. 1920,1080)");
    if (!file.empty()) {
        Picture p = from_png(file);
        require_indexable(p.width, p.height, file);
        if (!size.empty() && (size[0] != p.width || size[1] != p.height))
            throw std::invalid_argument("--image " + file + " is " + p.text() + ", not the --size " + std::to_string(size[0]) + "×" +
                                        std::to_string(size[1]) + " asked for");
        return p;
    }
    const std::size_t w = size.empty() ? default_width : size[0], h = size.empty() ? default_height : size[1];
    require_indexable(w, h, "a " + std::to_string(w) + "×" + std::to_string(h) + " picture");
    return make_picture(w, h, seed);
}

}  // namespace warplab::image
