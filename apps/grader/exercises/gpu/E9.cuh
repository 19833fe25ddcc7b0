// E9 on the GPU: ring_sum over 2^26 ints (65,536 pieces of 4 KB), 8 blocks of
// 256 per multiprocessor (timing only: the emulator grades).
#pragma once
#include "harness/gpu_main.cuh"

namespace wl::grade::e9 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned n = 1u << 26, block = 256;
    const unsigned blocks = 8 * gpu::multiprocessors();
    const int* in = gpu::upload(gpu::ints(n, 1, -1000, 1000));
    int* out = gpu::upload(std::vector<int>(blocks, 0));
    return [=] { exercise::ring_sum<block><<<blocks, block>>>(in, out, n / exercise::kPieceInts); };
}

}  // namespace wl::grade::e9
