// The one small kernel every transfers version moves its data through:
// y[i] = 2 x[i] + 1 over a grid-stride loop. It reads 4 bytes and writes 4 per
// element, so on the GPU's own memory it takes a fraction of what the copies
// over PCIe take: the lab is about the copies around it, not about it.
#pragma once
#include <algorithm>
#include <cstddef>

#include "kernels/transfers/work.h"

namespace warplab::transfers {

__global__ void scale_add(const float* __restrict__ x, float* __restrict__ y, std::size_t n)
{
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += stride) y[i] = kScale * x[i] + kOffset;
}

// A launch over n elements on `stream`: 256 threads a block, at most 4096
// blocks (enough to fill any current GPU); the error of the launch.
inline cudaError_t launch_scale_add(const float* x, float* y, std::size_t n, cudaStream_t stream)
{
    const unsigned blocks = unsigned(std::min<std::size_t>((n + 255) / 256, 4096));
    if (blocks > 0) scale_add<<<blocks, 256, 0, stream>>>(x, y, n);
    return cudaGetLastError();
}

}  // namespace warplab::transfers
