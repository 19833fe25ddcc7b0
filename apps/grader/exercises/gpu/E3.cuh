// E3 on the GPU: dot_partial over 2^24 ints, blocks of 256, the student's
// dot_blocks() grid (timing only: the emulator grades).
#pragma once
#include "harness/gpu_main.cuh"

namespace wl::grade::e3 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned n = 1u << 24, block = 256;
    const unsigned blocks = exercise::dot_blocks<block>(n);
    const int* a = gpu::upload(gpu::ints(n, 1, -100, 100));
    const int* b = gpu::upload(gpu::ints(n, 2, -100, 100));
    int* partial = gpu::scratch<int>(blocks);
    return [=] { exercise::dot_partial<block><<<blocks, block>>>(a, b, partial, n); };
}

}  // namespace wl::grade::e3
