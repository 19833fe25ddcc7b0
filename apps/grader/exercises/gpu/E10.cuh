// E10 on the GPU: sums of 2^22 chunks of 8 floats, blocks of 128 (timing
// only: the emulator grades).
#pragma once
#include "harness/gpu_main.cuh"

namespace wl::grade::e10 {

inline gpu::Launch gpu_setup()
{
    constexpr unsigned chunks = 1u << 22, stride = 8, block = 128;
    const float* in = gpu::upload(gpu::floats(std::size_t(chunks) * stride, 1, -1, 1));
    float* out = gpu::scratch<float>(chunks);
    return [=] { exercise::chunk_sums<block, stride><<<chunks / block, block>>>(in, out, chunks); };
}

}  // namespace wl::grade::e10
