// Image, later passes: the grid of partial sums reduced to one value.
//
// Idea: the first pass (any version) leaves one float per group, a grid of
//   partials (120×68 for 1920×1080 at 16×16 pixels a group). This kernel
//   reduces it the way v2 reduces pixels: a 16×16 group adds a 16×16 tile of
//   the partials (sequential addressing, a barrier after every step), leaving
//   a grid 16 times smaller each way; the host launches it again until one
//   value is left (120×68 → 8×5 → 1×1).
// Why it is not a version: every version shares it, so the ladder's
//   differences are all in the first pass, where the pixels are read. It uses
//   no warp intrinsic, so it runs at either emulated warp width (32 or 64).
// Preconditions: blockDim == (BX, BY); gridDim == (ceil(width / BX), ceil(height / BY)).
#pragma once
#include "kernels/image/02_sequential.cuh"

namespace warplab::image {

template <unsigned BX, unsigned BY>
__global__ void image_sum_partials(const float* __restrict__ in, unsigned width, unsigned height, float* out)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert((THREADS & (THREADS - 1)) == 0 && THREADS <= 1024, "the tree needs a power-of-two group");
    __shared__ float sdata[THREADS];

    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    sdata[tid] = (x < width && y < height) ? in[y * width + x] : 0.0f;
    __syncthreads();

#pragma unroll
    for (unsigned s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace warplab::image
