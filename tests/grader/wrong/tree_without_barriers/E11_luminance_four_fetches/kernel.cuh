// Known wrong (E11): the solution's fetch and its barrier after the store,
// but no barrier between the tree's levels.
//
// Expected verdict: `correct` fails on the pattern with the emulator's fault:
// at s = 32 thread 16 writes sdata[16]; at s = 16 thread 0 reads it. Both are
// lanes of warp 0 and nothing orders the two, so under the independent
// schedule the emulator reports "data race on shared memory" whichever lane
// runs first. The properties are not graded. Score 0/10.
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

    for (unsigned s = kGroupX * kGroupY / 2; s > 0; s >>= 1)
        if (tid < s) sdata[tid] += sdata[tid + s];  // WRONG: no __syncthreads() between the levels
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace exercise
