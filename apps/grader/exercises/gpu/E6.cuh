// E6 on the GPU: C = A B^T at 2048 x 2048 x 2048, TILE 16 (timing only: the emulator grades).
#pragma once
#include "harness/gpu_main.cuh"

namespace wl::grade::e6 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned size = 2048, tile = 16;
    const float* A = gpu::upload(gpu::floats(size * size, 1, -1, 1));
    const float* B = gpu::upload(gpu::floats(size * size, 2, -1, 1));
    float* C = gpu::scratch<float>(size * size);
    const dim3 grid(size / tile, size / tile), block(tile, tile);
    return [=] { exercise::matmul_abt<tile><<<grid, block>>>(A, B, C, size, size, size); };
}

}  // namespace wl::grade::e6
