// Known wrong (E11): right partials without a branch: every thread fetches
// its four pixels at coordinates clamped to the image, and weighs each by 1
// inside the image and 0 outside. The sum is right; the fetches are not: at
// the right and bottom edges the same pixels are fetched again and again.
//
// Expected verdict: `correct` passes. `four_fetches` passes group (0,0) and
// fails the last group of the traced 250x130 image, (15,8): its tile starts
// at (240,128) and 10x2 of its pixels are in the image. Thread (tx, ty)
// fetches x = 240 + tx + 8i (240 .. 255, each once) and y = 128 + ty + 8j
// (128 .. 143, each once); clamped, x = 249 .. 255 all read column 249 (7)
// and y = 129 .. 143 all read row 129 (15). So pixel (249,129) is fetched
// 7 x 15 = 105 times, and the pixels fetched more than once are those of
// column 249 or row 129: 2 + 10 - 1 = 11 of the 20. Score 7/10.
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
            const float inside = (x < width && y < height) ? 1.0f : 0.0f;
            // WRONG: a clamped fetch reads an edge pixel in place of each one outside
            sum += inside * luminance(image[min(y, height - 1) * width + min(x, width - 1)]);
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
