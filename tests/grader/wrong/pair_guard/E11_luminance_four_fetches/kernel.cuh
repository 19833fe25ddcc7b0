// Known wrong (E11): a 2x2 footprint whose bounds test is made once for the
// four pixels: `x + 1 < width && y + 1 < height`. Right for even sizes; at an
// odd width the last column is skipped, at an odd height the last row.
//
// Expected verdict: `correct` fails on the pattern (41x25, white: a partial
// counts its pixels). Groups (0,0) and (1,0) are whole: 256. Group (2,0)'s
// tile starts at x = 32 and 9 of its columns (32 .. 40) are in the image:
// 9 x 16 = 144. Its threads take x = 32, 34, ..., 46 and x + 1; the test
// x + 1 < 41 drops the pair (40, 41), so column 40 (16 pixels) is skipped:
// "your kernel's partial of group (2,0) was 128; the right partial is 144".
// Of the 7 cases the two of even sizes (96x64, 250x130) are right, the 5 with
// an odd width or height wrong: "wrong on 5 of 7 cases (right on the other
// 2)". The properties are measured on the traced 250x130 image, even, so
// right: 64 threads of 4 pixels (a 2x2 footprint each), every pixel once, the
// cut group (15,8)'s 10x2 too, and a tree of 6 rounds. Score 6/10: the
// properties hold where the result is right; the edges cost `correct`.
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
    if (x + 1 < width && y + 1 < height)  // WRONG: one test for the pair drops the last odd column and row
        sum = luminance(image[y * width + x]) + luminance(image[y * width + x + 1]) +
              luminance(image[(y + 1) * width + x]) + luminance(image[(y + 1) * width + x + 1]);
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = kGroupX * kGroupY / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace exercise
