// Reduction v7: multiple elements per thread
// (Harris, "Optimizing Parallel Reduction in CUDA", kernel 7).
//
// Idea: launch only as many blocks as the GPU runs at once (a few per SM) and
//   let each thread add up many elements in a grid-stride loop before the
//   tree. Tree work per element falls towards zero; the kernel becomes a
//   stream of loads.
// Changed from v6: the two-element load becomes a loop over i, i + BLOCK,
//   then i += 2*BLOCK*gridDim.x; the host sizes the grid from the SM count.
// Expected effect: close to DRAM bandwidth for large n (Harris's last and
//   fastest step on the G80). The trace shows step 0 with many global-load
//   instructions per warp, each at the ideal 4 sectors per request.
// Preconditions: BLOCK is a power of two from 64 to 1024; blockDim.x == BLOCK.
#pragma once
#include "kernels/reduction/05_unroll_last_warp.cuh"

namespace warplab::reduction {

template <unsigned BLOCK, class T>
__global__ void reduce_grid_stride(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64 && BLOCK <= 1024, "BLOCK is a power of two, 64..1024");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (BLOCK * 2) + threadIdx.x;
    unsigned grid_size = BLOCK * 2 * gridDim.x;
    T sum = T(0);
    while (i < n) {
        sum += g_in[i];
        if (i + BLOCK < n) sum += g_in[i + BLOCK];
        i += grid_size;
    }
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
