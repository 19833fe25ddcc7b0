// Known wrong (E11): four pixels a thread, each pixel once, but one at a
// time: the group runs the whole tree for each 8x8 quarter of its tile and
// thread 0 adds the four results. Four trees instead of one, and no add
// during the fetch.
//
// Expected verdict: `correct` passes. `four_fetches` passes the counts (4
// pixels a thread, each of the 256 once) and fails the order: the first
// quarter's store is in barrier interval 0; then 1 barrier after it, 6 in
// the tree and 1 after thread 0's read make the second quarter's fetch in
// interval 8: "warp 0 fetched pixels in barrier interval 8, after the
// group's first shared store (interval 0)". `group_tree` fails: the writers
// of the intervals go 64, 32, ..., 1 and then 64 again, no single tree.
// Score 4/10.
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

    float total = 0.0f;
    for (unsigned q = 0; q < 4; ++q) {  // WRONG: a tree for each quarter of the tile
        const unsigned x = x0 + threadIdx.x + (q % 2) * kGroupX, y = y0 + threadIdx.y + (q / 2) * kGroupY;
        sdata[tid] = (x < width && y < height) ? luminance(image[y * width + x]) : 0.0f;
        __syncthreads();
        for (unsigned s = kGroupX * kGroupY / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
        if (tid == 0) total += sdata[0];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = total;
}

}  // namespace exercise
