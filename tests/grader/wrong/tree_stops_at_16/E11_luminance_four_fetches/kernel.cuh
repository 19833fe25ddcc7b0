// Known wrong (E11): the solution's four-pixel fetch, the tree 64 -> 32 -> 16,
// then thread 0 alone folds the 16 values left, in a loop over shared memory.
// The tree's first rounds are right; the rest is one thread's serial work,
// which a level of warp 0 written once and then read by one loop shows.
//
// Expected verdict: `correct` passes; the shape fails: "64, 32, 16, then none",
// and the hint says the tree stops at 16 values. 7/10.
#pragma once

namespace exercise {

constexpr unsigned kGroupX = 8, kGroupY = 8;
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
    const unsigned x0 = blockIdx.x * kTileX, y0 = blockIdx.y * kTileY;

    float sum = 0.0f;
    for (unsigned j = 0; j < 2; ++j)
        for (unsigned i = 0; i < 2; ++i) {
            const unsigned x = x0 + threadIdx.x + i * kGroupX, y = y0 + threadIdx.y + j * kGroupY;
            if (x < width && y < height) sum += luminance(image[y * width + x]);
        }
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = 32; s >= 16; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        float total = 0.0f;
        for (unsigned k = 0; k < 16; ++k) total += sdata[k];
        partials[blockIdx.y * gridDim.x + blockIdx.x] = total;
    }
}
}  // namespace exercise
