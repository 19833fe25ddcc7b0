// E11 on the GPU: the luminance partials of a 1920x1080 RGBA8 image, the
// student's group and tile (timing only: the emulator grades).
#pragma once
#include "harness/gpu_main.cuh"
#include "warplab/random.h"

namespace wl::grade::e11 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned width = 1920, height = 1080;
    std::vector<uchar4> pixels(std::size_t(width) * height);
    wl::Random rng(1);
    const auto channel = [&] { return static_cast<unsigned char>(rng.next()); };
    for (uchar4& p : pixels) p = make_uchar4(channel(), channel(), channel(), 255);
    const uchar4* image = gpu::upload(pixels);
    using exercise::kGroupX, exercise::kGroupY, exercise::kTileX, exercise::kTileY;
    const dim3 grid((width + kTileX - 1) / kTileX, (height + kTileY - 1) / kTileY), group(kGroupX, kGroupY);
    float* partials = gpu::scratch<float>(std::size_t(grid.x) * grid.y);
    return [=] { exercise::luminance_partials<<<grid, group>>>(image, partials, width, height); };
}

}  // namespace wl::grade::e11
