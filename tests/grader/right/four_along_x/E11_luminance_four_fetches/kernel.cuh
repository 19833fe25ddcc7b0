// Right but different (E11): the blog's own footprint, four pixels along x
// (its Input[idx * 4] ... Input[idx * 4 + 3]), on a 32x8 tile, and the warps
// first (as CUB does): each warp halves its 32 sums by shuffles, then thread 0
// adds the warps' results.
//
// Expected verdict: full marks. Thread (tx, ty) fetches (x0 + 4tx + k, y0 + ty),
// k = 0 .. 3: 8 threads cover a row of 32, 8 rows the tile, each pixel once;
// 64 threads over 256 pixels. Each warp makes 5 shuffle rounds (32 -> 1),
// its lane 0 stores the result (2 writers), thread 0 adds the 2: 6 rounds,
// log2(64).
#pragma once

namespace exercise {

constexpr unsigned kGroupX = 8, kGroupY = 8;
constexpr unsigned kTileX = 32, kTileY = 8;

__device__ inline float luminance(uchar4 p)
{
    return 0.2125f * (p.x / 255.0f) + 0.7154f * (p.y / 255.0f) + 0.0721f * (p.z / 255.0f);
}

__global__ void luminance_partials(const uchar4* __restrict__ image, float* partials, unsigned width,
                                   unsigned height)
{
    constexpr unsigned kThreads = kGroupX * kGroupY;
    __shared__ float warp_sums[kThreads / 32];
    const unsigned tid = threadIdx.y * kGroupX + threadIdx.x;
    const unsigned x = blockIdx.x * kTileX + 4 * threadIdx.x, y = blockIdx.y * kTileY + threadIdx.y;

    float sum = 0.0f;
    for (unsigned k = 0; k < 4; ++k)
        if (x + k < width && y < height) sum += luminance(image[y * width + x + k]);
    for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid % warpSize == 0) warp_sums[tid / warpSize] = sum;
    __syncthreads();

    if (tid == 0) {
        float total = 0.0f;
        for (unsigned w = 0; w < kThreads / warpSize; ++w) total += warp_sums[w];
        partials[blockIdx.y * gridDim.x + blockIdx.x] = total;
    }
}

}  // namespace exercise
