// E7 on the GPU: transpose of 8192 x 8192 floats, tiles of 32 x 32, blocks of
// 32 x 8 (timing only: the emulator grades).
#pragma once
#include "harness/gpu_main.cuh"

namespace wl::grade::e7 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned size = 8192, tile = 32, rows = 8;
    const float* in = gpu::upload(gpu::floats(std::size_t(size) * size, 1, -1, 1));
    float* out = gpu::scratch<float>(std::size_t(size) * size);
    const dim3 grid(size / tile, size / tile), block(tile, rows);
    return [=] { exercise::transpose<tile, rows><<<grid, block>>>(in, out, size, size); };
}

}  // namespace wl::grade::e7
