// Right but different (E11): a 2x2 footprint, and the tree finished with
// shuffles (reduction v8's tail).
//
// Expected verdict: full marks. Thread (tx, ty) fetches (x0 + 2tx + dx,
// y0 + 2ty + dy), dx, dy in {0, 1}: the 64 footprints tile the 16x16 tile,
// each pixel once, each tested against both edges. The 64 sums go to shared
// memory (64 writers), then warp 0 folds two a lane as it reads them
// (64 -> 32) and halves them in 5 shuffle rounds (32 -> 1): 6 rounds in all,
// log2(64).
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
    const unsigned x = blockIdx.x * kTileX + 2 * threadIdx.x, y = blockIdx.y * kTileY + 2 * threadIdx.y;

    float sum = 0.0f;
    for (unsigned dy = 0; dy < 2; ++dy)
        for (unsigned dx = 0; dx < 2; ++dx)
            if (x + dx < width && y + dy < height) sum += luminance(image[(y + dy) * width + x + dx]);
    sdata[tid] = sum;
    __syncthreads();

    if (tid < 32) {
        float v = sdata[tid] + sdata[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = v;
    }
}

}  // namespace exercise
