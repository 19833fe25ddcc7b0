// The image problem itself, independent of any kernel: an RGBA8 picture
// (seeded, or read from a PNG file), its mean luminance on the CPU in double,
// and the tolerance a GPU sum in float must meet.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "warplab/random.h"

namespace warplab::image {

// One RGBA8 pixel, laid out as CUDA's uchar4 (the kernels' type).
struct alignas(4) Rgba8 {
    std::uint8_t x, y, z, w;  // red, green, blue, alpha
};
static_assert(sizeof(Rgba8) == 4);

// A device pointer to pixels, passed to a kernel that takes `const uchar4*`:
// the host code knows no uchar4, and the launch converts.
struct PixelPointer {
    const Rgba8* p;
    template <class T> operator const T*() const { return reinterpret_cast<const T*>(p); }
};

// The blog's weights (ITU-R BT.709 luma): luminance = dot(rgb / 255, weights).
inline constexpr double kWeights[3] = {0.2125, 0.7154, 0.0721};

// A picture's size alone: what validation and device memory need.
struct PictureSize {
    std::size_t width = 0, height = 0;
    std::size_t count() const { return width * height; }
    std::string text() const { return std::to_string(width) + "×" + std::to_string(height); }
};

struct Picture : PictureSize {
    std::vector<Rgba8> pixels;  // row-major
};

// What `warplab bench image` reduces: a 1080p frame, as in the blog.
constexpr std::size_t kBenchWidth = 1920, kBenchHeight = 1080;
// What `warplab trace image` runs by default: the emulator runs every group,
// and 320×180 is 1080p's shape at a size it traces in about a second; its
// last row of 16×16 groups is partly outside the picture.
constexpr std::size_t kTraceWidth = 320, kTraceHeight = 180;

// A seeded picture: a red gradient left to right, a green one top to bottom
// and random blue, each channel with ±48 of noise, so that neighbouring
// pixels differ and a pixel read twice or missed changes the sum.
inline Picture make_picture(std::size_t width, std::size_t height, std::uint64_t seed)
{
    wl::Random rng(seed);
    Picture p{{width, height}, std::vector<Rgba8>(width * height)};
    auto channel = [&](double base) {
        const double v = base + double(rng.uniform_int(-48, 48));
        return static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    };
    for (std::size_t y = 0; y < height; ++y)
        for (std::size_t x = 0; x < width; ++x) {
            Rgba8& px = p.pixels[y * width + x];
            px.x = channel(255.0 * double(x) / double(width));
            px.y = channel(255.0 * double(y) / double(height));
            px.z = static_cast<std::uint8_t>(rng.uniform_int(0, 255));
            px.w = 255;
        }
    return p;
}

// The sum of every pixel's luminance, in double: each term is exact to
// about 1e-16, the sum of up to 2^32 of them to about 1e-6 of itself at worst
// (and far better in practice); the float sums it checks are far coarser.
inline double reference_sum(const Picture& p)
{
    double sum = 0;
    for (const Rgba8& px : p.pixels) sum += (kWeights[0] * px.x + kWeights[1] * px.y + kWeights[2] * px.z) / 255.0;
    return sum;
}

// Whether a float sum of the luminances matches the double reference.
// Every term is >= 0, so each float addition rounds by at most 2^-24 of a
// partial sum <= the total S, and a value passes through at most d levels of
// additions: |got - S| <= d · 2^-24 · S (Higham, pairwise summation). d: the
// luminance itself (3 products and 2 sums: 5 roundings), the fetches a
// thread adds (<= 2 levels), the group's tree (<= 10 levels for 1024
// threads), and each later pass (8 levels a 16×16 group; 2^32 pixels need
// at most 4 passes after the first): d <= 5 + 2 + 10 + 32 = 49; 64 · 2^-24
// (3.8e-6 of S) covers it. v7 adds 32 pixels a thread (10 levels), and its
// last group one term a thread per 256 partials and its tree (8 levels at
// 256 threads): d <= 5 + 10 + 8 + 33 + 8 = 64 up to 8448 groups of 128×64,
// 69 million pixels (8K UHD is 33 million). The absolute 1e-6 covers an all-black picture
// (S = 0, which the kernels give exactly). A kernel that misses or repeats
// one pixel of 1080p at mean luminance 0.5 is off by 2.4e-7 of S: below this
// tolerance, so the tests also compare the partials.
inline bool sum_matches(double got, double expected)
{
    return std::isfinite(got) && std::fabs(got - expected) <= 64.0 / 16777216.0 * std::fabs(expected) + 1e-6;
}

}  // namespace warplab::image
