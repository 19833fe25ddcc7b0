// Image v6: four fetches per thread with 8×8 = 64-thread groups (the AMD
// blog's "increases the number of threads from 16 to 64").
//
// Idea: keep v5's four fetches, but give each group 64 threads, the blog's
//   rule of thumb, so each group covers four times the pixels and the grid
//   has a quarter of the groups.
// Changed from v5: only the group: 8×8 threads (the kernel is v5's body);
//   the tile is 16×16 and the partials 120×68 for 1920×1080 (the blog's
//   60×34 reads a quarter of the image). On NVIDIA the group is two warps:
//   one barrier step before the shuffles.
// Expected effect: the blog's GPUs ran it faster than v5 while "doing more
//   work"; on NVIDIA, four times the threads per SM that v5 could hold.
// Preconditions: as v5, and BX·BY a multiple of 64.
#pragma once
#include "kernels/image/05_four_fetches.cuh"

namespace warplab::image {

template <unsigned BX, unsigned BY>
__global__ void image_four_fetches_64(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    static_assert((BX * BY) % 64 == 0, "v6's groups are a multiple of 64 threads (v5 takes smaller ones)");
    four_fetches_sum<BX, BY>(image, width, height, partials);
}

}  // namespace warplab::image
