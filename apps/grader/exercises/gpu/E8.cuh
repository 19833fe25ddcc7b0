// E8 on the GPU: SAXPY over 2^26 floats with a grid of 4 blocks of 256 per
// multiprocessor, about one wave (timing only: the emulator grades).
#pragma once
#include "harness/gpu_main.cuh"

namespace wl::grade::e8 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned n = 1u << 26, block = 256;
    const unsigned blocks = 4 * gpu::multiprocessors();
    const float* x = gpu::upload(gpu::floats(n, 1, -1, 1));
    float* y = gpu::upload(gpu::floats(n, 2, -1, 1));
    return [=] { exercise::saxpy<<<blocks, block>>>(2.5f, x, y, n); };
}

}  // namespace wl::grade::e8
