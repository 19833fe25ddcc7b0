// Image v3-wave64: the AMD blog's unrolled tail exactly as it teaches it,
// kept as a marked variant: right only where 64 threads are one lockstep
// wavefront. Do not copy it.
//
// Idea (the blog): "as soon as [the threads] are below 32 or 64, a memory
//   barrier shouldn't be necessary anymore": barriers fold the values down
//   to 64, then `if (GI < 64)` adds offsets 32, 16, ..., 1 through volatile
//   shared memory with no barrier at all.
// Changed from v3: the barrier loop stops at 64 values, and the tail is the
//   blog's volatile one over 64 threads instead of one warp's shuffles.
// Expected effect: right under the emulator's lockstep schedule at warp
//   width 64 (AMD's wavefront). At 32 the tail spans two warps: thread 0
//   reads sdata[32] while warp 1 writes it, a data race under either
//   schedule; at 64 under the independent schedule, a race too (NVIDIA
//   promises no lockstep since Volta). The GPU benchmark does not time it.
// Preconditions: as v1, and BX·BY >= 128 (the tail reads up to sdata[95]).
#pragma once
#include "kernels/image/02_sequential.cuh"

namespace warplab::image {

template <unsigned BX, unsigned BY>
__global__ void image_unrolled_tail_wave64(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert((THREADS & (THREADS - 1)) == 0 && THREADS >= 128 && THREADS <= 1024,
                  "the 64-thread tail reads sdata[tid + 32] for tid < 64: at least 128 threads");
    __shared__ float sdata[THREADS];

    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    sdata[tid] = luminance_at(image, width, height, x, y);
    __syncthreads();

#pragma unroll
    for (unsigned s = THREADS / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 64) {  // AMD: one wavefront; NVIDIA: two warps
        volatile float* v = sdata;
        v[tid] = v[tid] + v[tid + 32];
        v[tid] = v[tid] + v[tid + 16];
        v[tid] = v[tid] + v[tid + 8];
        v[tid] = v[tid] + v[tid + 4];
        v[tid] = v[tid] + v[tid + 2];
        v[tid] = v[tid] + v[tid + 1];
    }

    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}

}  // namespace warplab::image
