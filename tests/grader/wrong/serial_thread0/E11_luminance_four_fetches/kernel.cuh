// Known wrong (E11): right partials, but thread 0 of each group adds the
// luminance of its tile's pixels one by one while the other 63 threads idle.
//
// Expected verdict: `correct` passes. `four_fetches` fails: in group (0,0)
// of the traced 250x130 image (a whole 16x16 tile) thread 0 fetches all 256
// pixels and the others none: "fetching 0 to 256 pixels each". `group_tree`
// fails: no thread writes shared memory ("threads writing shared memory in
// each barrier interval of block 0: none"). Score 4/10.
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
    if (threadIdx.x != 0 || threadIdx.y != 0) return;  // WRONG: one thread does the group's work
    const unsigned x0 = blockIdx.x * kTileX, y0 = blockIdx.y * kTileY;
    float sum = 0.0f;
    for (unsigned y = y0; y < y0 + kTileY && y < height; ++y)
        for (unsigned x = x0; x < x0 + kTileX && x < width; ++x) sum += luminance(image[y * width + x]);
    partials[blockIdx.y * gridDim.x + blockIdx.x] = sum;
}

}  // namespace exercise
