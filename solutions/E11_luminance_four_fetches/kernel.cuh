// E11 solution: four pixels a thread, one in each 8x8 quarter of the 16x16
// tile, then a six-level tree in shared memory.
//
// Fetch: thread (tx, ty) takes (x0 + tx + 8i, y0 + ty + 8j), i, j in {0, 1}:
// a warp (4 rows of 8 threads) reads 8 consecutive pixels, 32 bytes, of each
// of 4 rows a load; each pixel of the tile is fetched by one thread.
// Tree: 64 -> 32 -> ... -> 1, sequential addressing, a barrier a level: the
// group is two warps, so the blog's barrier-free tail would race here.
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

    for (unsigned s = kGroupX * kGroupY / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace exercise
