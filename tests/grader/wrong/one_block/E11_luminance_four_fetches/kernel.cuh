// Known wrong (E11): right result, and a grid of one group: the tile is
// 4096x4096, larger than any image the grader uses, so group (0,0) covers
// the whole image and its 64 threads loop over all of it before the tree.
//
// Expected verdict: `correct` passes (the one partial is the whole sum);
// `group_tree` passes. `four_fetches` fails on its counts: on the traced
// 250x130 image (32500 = 507 x 64 + 52 pixels) thread t fetches pixels t,
// t + 64, ...: 508 for t < 52, 507 for the others: "64 threads (8x8) over a
// 4096x4096 tile, fetching 507 to 508 pixels each". Score 7/10.
#pragma once

namespace exercise {

constexpr unsigned kGroupX = 8, kGroupY = 8;
constexpr unsigned kTileX = 4096, kTileY = 4096;  // WRONG: one group for the whole image

__device__ inline float luminance(uchar4 p)
{
    return 0.2125f * (p.x / 255.0f) + 0.7154f * (p.y / 255.0f) + 0.0721f * (p.z / 255.0f);
}

__global__ void luminance_partials(const uchar4* __restrict__ image, float* partials, unsigned width,
                                   unsigned height)
{
    __shared__ float sdata[kGroupX * kGroupY];
    const unsigned tid = threadIdx.y * kGroupX + threadIdx.x;
    float sum = 0.0f;
    for (unsigned i = tid; i < width * height; i += kGroupX * kGroupY) sum += luminance(image[i]);
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = kGroupX * kGroupY / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace exercise
