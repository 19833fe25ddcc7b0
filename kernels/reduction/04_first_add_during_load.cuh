// Reduction v4: first add during the global load
// (Harris, "Optimizing Parallel Reduction in CUDA", kernel 4).
//
// Idea: in v3 half of the threads are idle from the first step on. Let every
//   thread load two elements, BLOCK apart, and add them before storing the sum
//   to shared memory: each block now covers 2*BLOCK elements.
// Changed from v3: the load step reads g_in[i] and g_in[i + blockDim.x];
//   the launch uses half as many blocks.
// Expected effect: the same tree on half the blocks, so about half the
//   shared-memory work per element; every thread does useful work in step 0.
// Preconditions: BLOCK is a power of two; blockDim.x == BLOCK; the grid covers
//   2*BLOCK elements per block.
#pragma once

namespace warplab::reduction {

template <unsigned BLOCK, class T>
__global__ void reduce_first_add_during_load(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T sum = (i < n) ? g_in[i] : T(0);
    if (i + blockDim.x < n) sum += g_in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}

}  // namespace warplab::reduction
