// Known wrong (E11): the AMD blog's barrier-free group: "because the number
// of threads used is 64, memory barriers are not necessary". Right on AMD,
// where the 64 threads are one wavefront; on NVIDIA they are two warps.
//
// Expected verdict: `correct` fails on the pattern with the emulator's fault.
// Warp 0 runs the tail, reading sdata[tid + 32] (words 32 .. 63), which only
// warp 1 stores, and no barrier orders the two. Under the independent
// schedule of the pattern's case warp 0 gets there first, so the emulator
// stops at the read of a word warp 1 has not written yet: "read of
// uninitialised shared memory: sdata[..] has not been written in this block
// before this read (… is a __syncthreads() missing …?)", by a lane of warp 0. (Had warp 1 stored first, it would be "data race on
// shared memory".) The properties are not graded. Score 0/10.
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
    // WRONG: no __syncthreads(): the tail below spans two warps
    if (tid < 32) {
        volatile float* v = sdata;
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace exercise
