// Image v2: sequential addressing (the AMD blog's second shader; Harris's kernel 3).
//
// Idea: fold the upper half of the active values onto the lower half: at
//   stride s (THREADS/2, then /4, ...), thread tid < s adds element tid + s.
// Changed from v1: the loop runs the stride downwards and thread tid works on
//   element tid itself.
// Expected effect: a warp reads 32 consecutive words: no bank conflicts. The
//   blog found no difference on its newer GPUs; half the threads idle from
//   the first step on.
// Preconditions: as v1.
#pragma once
#include "kernels/image/01_interleaved.cuh"

namespace warplab::image {

template <unsigned BX, unsigned BY>
__global__ void image_sequential(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert((THREADS & (THREADS - 1)) == 0 && THREADS <= 1024, "the tree needs a power-of-two group");
    __shared__ float sdata[THREADS];

    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    sdata[tid] = luminance_at(image, width, height, x, y);
    __syncthreads();

    for (unsigned s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace warplab::image
