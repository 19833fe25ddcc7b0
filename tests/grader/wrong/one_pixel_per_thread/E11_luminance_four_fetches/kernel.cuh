// Known wrong (E11): right partials from the blog's first versions: a 16x16
// group, one pixel a thread, then a tree of log2(256) = 8 levels. The same
// 16x16 tile, four times the threads, and the fetch this exercise is about
// not made.
//
// Expected verdict: `correct` passes; `group_tree` passes (256 sums halved 8
// times). `four_fetches` fails on its counts: group (0,0) of the traced
// 250x130 image has "256 threads (16x16) over a 16x16 tile, fetching 1 pixel
// each". Score 7/10.
#pragma once

namespace exercise {

constexpr unsigned kGroupX = 16, kGroupY = 16;  // WRONG: 256 threads, one pixel each
constexpr unsigned kTileX = 16, kTileY = 16;

__device__ inline float luminance(uchar4 p)
{
    return 0.2125f * (p.x / 255.0f) + 0.7154f * (p.y / 255.0f) + 0.0721f * (p.z / 255.0f);
}

__global__ void luminance_partials(const uchar4* __restrict__ image, float* partials, unsigned width,
                                   unsigned height)
{
    __shared__ float sdata[kGroupX * kGroupY];
    const unsigned tid = threadIdx.y * kGroupX + threadIdx.x;
    const unsigned x = blockIdx.x * kTileX + threadIdx.x, y = blockIdx.y * kTileY + threadIdx.y;
    sdata[tid] = (x < width && y < height) ? luminance(image[y * width + x]) : 0.0f;
    __syncthreads();
    for (unsigned s = kGroupX * kGroupY / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace exercise
