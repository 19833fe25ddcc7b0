// Image v5: four fetches per thread, 4×4 = 16-thread groups (the AMD blog's
// "Pre-fetching four Color Values into Shared Memory").
//
// Idea: fetch more per thread again: each thread adds four pixels, a 2×2
//   pattern BX and BY apart, so a BX×BY group covers a 2·BX × 2·BY tile.
// Changed from v4: two more fetches, one tile row further down; the default
//   group is the blog's 4×4 = 16 threads, half a warp: no barrier at all, the
//   tree is the shuffles alone. The partials follow the tile: 240×135 for
//   1920×1080 (the blog's 120×68 reads a quarter of the image).
// Expected effect: the blog saw "a nearly linear increase" over v4, while
//   calling 16 threads "not efficient" (its rule of thumb: a multiple of 64).
//   On NVIDIA a 16-thread group leaves half of each warp's lanes empty, and
//   an SM runs at most 32 groups: 512 of its 2048 threads.
// Preconditions: as v1, with gridDim == (ceil(width / (2·BX)), ceil(height / (2·BY))).
#pragma once
#include "kernels/image/03_unrolled_tail.cuh"

namespace warplab::image {

// One group's share of the image into partials[group]: four pixels a thread,
// then v4's tree and tail. v5 and v6 launch it with different groups.
template <unsigned BX, unsigned BY>
__device__ void four_fetches_sum(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert((THREADS & (THREADS - 1)) == 0 && THREADS <= 1024, "the tree needs a power-of-two group");
    __shared__ float sdata[THREADS];

    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * (2 * BX) + threadIdx.x, y = blockIdx.y * (2 * BY) + threadIdx.y;
    sdata[tid] = (luminance_at(image, width, height, x, y) + luminance_at(image, width, height, x + BX, y)) +
                 (luminance_at(image, width, height, x, y + BY) + luminance_at(image, width, height, x + BX, y + BY));
    __syncthreads();

    sum_group<THREADS>(sdata, tid, &partials[blockIdx.y * gridDim.x + blockIdx.x]);
}

template <unsigned BX, unsigned BY>
__global__ void image_four_fetches(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    four_fetches_sum<BX, BY>(image, width, height, partials);
}

}  // namespace warplab::image
