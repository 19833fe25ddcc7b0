// Image v4: two fetches per thread, 64-thread groups (the AMD blog's
// "Pre-fetching two Color Values into Shared Memory").
//
// Idea: in v3 only the first load uses every thread. Each thread now fetches
//   two pixels, BX apart in a row, and adds them before the tree, so a group
//   of BX×BY threads covers a 2·BX × BY tile with half the threads per pixel.
// Changed from v3: the tile is twice as wide (x = blockIdx.x·2·BX + threadIdx.x,
//   and x + BX); the default group is 8×8 = 64 threads (the blog's), so the
//   tree is one barrier step and the warp's shuffles. The grid of partials
//   follows the tile: 120×135 for 1920×1080. (The blog keeps 120×68 by
//   reading half of the image; here every pixel is read once.)
// Expected effect: twice the loads in flight per thread and half the tree
//   work per pixel; the blog saw every one of its GPUs gain.
// Preconditions: as v1, with gridDim == (ceil(width / (2·BX)), ceil(height / BY)).
#pragma once
#include "kernels/image/03_unrolled_tail.cuh"

namespace warplab::image {

template <unsigned BX, unsigned BY>
__global__ void image_two_fetches(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert((THREADS & (THREADS - 1)) == 0 && THREADS <= 1024, "the tree needs a power-of-two group");
    __shared__ float sdata[THREADS];

    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * (2 * BX) + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    sdata[tid] = luminance_at(image, width, height, x, y) + luminance_at(image, width, height, x + BX, y);
    __syncthreads();

    sum_group<THREADS>(sdata, tid, &partials[blockIdx.y * gridDim.x + blockIdx.x]);
}

}  // namespace warplab::image
