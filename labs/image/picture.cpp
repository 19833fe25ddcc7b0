#include "labs/image/picture.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "labs/common/png_io.h"

namespace warplab::image {

namespace {

// read_png or read_png_size's failure as the lab's one-line refusal.
template <class Read> auto read_image(const std::string& file, Read&& read)
{
    try {
        return read(file);
    } catch (const std::runtime_error& e) {
        throw std::invalid_argument(std::string("--image: ") + e.what());
    }
}

void require_indexable(PictureSize p, const std::string& what)
{
    if (p.width == 0 || p.height == 0) throw std::invalid_argument(what + " has no pixels");
    if (p.width > 0xFFFFFFFFu || p.height > 0xFFFFFFFFu || p.count() > 0xFFFFFFFFu)
        throw std::invalid_argument(what + " has 2^32 pixels or more (the kernels index with 32 bits)");
}

}  // namespace

PictureSize picture_size(const std::string& file, const std::vector<std::size_t>& size, std::size_t default_width,
                         std::size_t default_height)
{
    if (!size.empty() && size.size() != 2) throw std::invalid_argument("an image size is WIDTH,HEIGHT (e.g. 1920,1080)");
    if (!file.empty()) {
        const ImageSize header = read_image(file, read_png_size);
        const PictureSize p{header.width, header.height};
        require_indexable(p, file);
        if (!size.empty() && (size[0] != p.width || size[1] != p.height))
            throw std::invalid_argument("--image " + file + " is " + p.text() + ", not the --size " + std::to_string(size[0]) + "×" +
                                        std::to_string(size[1]) + " asked for");
        return p;
    }
    const PictureSize p{size.empty() ? default_width : size[0], size.empty() ? default_height : size[1]};
    require_indexable(p, "a " + p.text() + " picture");
    return p;
}

Picture picture_for(const std::string& file, const std::vector<std::size_t>& size, std::size_t default_width,
                    std::size_t default_height, std::uint64_t seed)
{
    const PictureSize s = picture_size(file, size, default_width, default_height);
    if (file.empty()) return make_picture(s.width, s.height, seed);
    const RgbaImage png = read_image(file, read_png);
    Picture p{{std::size_t(png.width), std::size_t(png.height)}, std::vector<Rgba8>(std::size_t(png.width) * png.height)};
    std::memcpy(p.pixels.data(), png.rgba.data(), png.rgba.size());
    return p;
}

PictureCells picture_cells(const Picture& p, std::size_t across)
{
    const std::size_t cell = std::max<std::size_t>(1, (p.width + across - 1) / across);
    PictureCells out{unsigned((p.width + cell - 1) / cell), unsigned((p.height + cell - 1) / cell), unsigned(cell), {}};
    out.rgb.reserve(std::size_t(out.width) * out.height * 3);
    for (std::size_t y0 = 0; y0 < p.height; y0 += cell)
        for (std::size_t x0 = 0; x0 < p.width; x0 += cell) {
            std::uint64_t sum[3] = {}, count = 0;
            for (std::size_t y = y0; y < std::min(p.height, y0 + cell); ++y)
                for (std::size_t x = x0; x < std::min(p.width, x0 + cell); ++x, ++count) {
                    const Rgba8& px = p.pixels[y * p.width + x];
                    sum[0] += px.x, sum[1] += px.y, sum[2] += px.z;
                }
            for (const std::uint64_t channel : sum) out.rgb.push_back(std::uint8_t(channel / count));
        }
    return out;
}

}  // namespace warplab::image
