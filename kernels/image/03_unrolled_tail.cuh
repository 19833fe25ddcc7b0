// Image v3: the unrolled tail, correct on NVIDIA (the AMD blog's "Unroll the
// Loops", written for a 32-wide warp that is not lockstep since Volta).
//
// Idea: once the values left fit in one warp, no group barrier is needed:
//   warp 0 finishes with shuffles (__shfl_down_sync), which move the values
//   between lanes and synchronise them in one instruction.
// Changed from v2: the barrier loop stops when 32 values are left (or at
//   once, for groups of 32 threads or fewer); warp 0 adds them with
//   log2(min(THREADS, 32)) shuffle rounds, unrolled.
// Expected effect: five fewer __syncthreads() per group and no loop overhead
//   in the tail; the blog saw its older GPU gain more than its newer ones.
//   The blog's own tail (no barrier for 64 threads) is v3-wave64.
// Preconditions: as v1.
#pragma once
#include "kernels/image/02_sequential.cuh"

namespace warplab::image {

// The sum of lane 0 .. LANES-1's v, in lane 0, for the first warp of a group
// of THREADS: a group smaller than a warp shuffles within its own lanes (width LANES).
template <unsigned THREADS>
__device__ inline float warp_tail(float v)
{
    constexpr unsigned LANES = THREADS < 32 ? THREADS : 32;
    constexpr unsigned MASK = LANES == 32 ? 0xffffffffu : (1u << LANES) - 1;
#pragma unroll
    for (unsigned offset = LANES / 2; offset > 0; offset /= 2) v += __shfl_down_sync(MASK, v, offset, LANES);
    return v;
}

// The group's sum of sdata[0 .. THREADS-1] into *partial: barrier steps while
// more than one warp works, then warp 0's shuffles (v4, v5 and v6 end so too).
template <unsigned THREADS>
__device__ inline void sum_group(float* sdata, unsigned tid, float* partial)
{
#pragma unroll
    for (unsigned s = THREADS / 2; s >= 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        const float sum = warp_tail<THREADS>(sdata[tid]);
        if (tid == 0) *partial = sum;
    }
}

template <unsigned BX, unsigned BY>
__global__ void image_unrolled_tail(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert((THREADS & (THREADS - 1)) == 0 && THREADS <= 1024, "the tree needs a power-of-two group");
    __shared__ float sdata[THREADS];

    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    sdata[tid] = luminance_at(image, width, height, x, y);
    __syncthreads();

    sum_group<THREADS>(sdata, tid, &partials[blockIdx.y * gridDim.x + blockIdx.x]);
}

}  // namespace warplab::image
