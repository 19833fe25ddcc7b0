// Reduction v6: completely unrolled, block size as a template parameter
// (Harris, "Optimizing Parallel Reduction in CUDA", kernel 6).
//
// Idea: BLOCK is known at compile time, so the number of tree steps is too.
//   Write every step out and let `if (BLOCK >= ...)` disappear at compile time.
// Changed from v5: the for loop over s becomes a fixed sequence of steps
//   guarded by the template parameter.
// Expected effect: no loop counter, no loop branch, no `s >>= 1`: the
//   instructions left are the loads, adds, stores and barriers. The trace is
//   the same as v5's, step for step.
// Preconditions: BLOCK is a power of two from 64 to 1024; blockDim.x == BLOCK.
#pragma once
#include "kernels/reduction/05_unroll_last_warp.cuh"

namespace warplab::reduction {

template <unsigned BLOCK, class T>
__global__ void reduce_complete_unroll(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64 && BLOCK <= 1024, "BLOCK is a power of two, 64..1024");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (BLOCK * 2) + threadIdx.x;
    T sum = (i < n) ? g_in[i] : T(0);
    if (i + BLOCK < n) sum += g_in[i + BLOCK];
    sdata[tid] = sum;
    __syncthreads();

    if (BLOCK >= 1024) { if (tid < 512) { sdata[tid] += sdata[tid + 512]; } __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }

    if (tid < 32) warp_reduce_synced<T>(sdata, tid);

    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}

}  // namespace warplab::reduction
