// E13 on the GPU: the two variants over 2^24 elements, one after the other,
// timed as one launch (timing only: the emulator grades). Set beside the
// reference solution's, the sum says little alone; `warplab bench method`
// reads a kernel's three times side by side.
#pragma once
#include "harness/gpu_main.cuh"

namespace wl::grade::e13 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned n = 1u << 24, block = 256, blocks = (n + block - 1) / block;
    const float* x = gpu::upload(gpu::floats(n, 1, 0, 1));
    const float* y = gpu::upload(gpu::floats(n, 2, 0, 1));
    float* out = gpu::scratch<float>(n);
    return [=] {
        exercise::blend_memory_only<<<blocks, block>>>(x, y, out, n);
        exercise::blend_compute_only<<<blocks, block>>>(x, y, out, n, -1.0f);
    };
}

}  // namespace wl::grade::e13
