// Reduction v1: interleaved addressing with divergent branching
// (Harris, "Optimizing Parallel Reduction in CUDA", kernel 1).
//
// Idea: each block loads BLOCK elements into shared memory, then halves the
//   number of partial sums per step: at stride s, thread tid adds element
//   tid + s into element tid when tid is a multiple of 2s. One partial sum per
//   block goes back to global memory; the host launches again until one is left.
// Changed: the starting point.
// Expected effect: correct but slow. `tid % (2*s) == 0` leaves every warp only
//   partly active from the first step on (16 of 32 lanes, then 8, ...), and
//   the modulo is expensive. The trace shows partially-active warps at every
//   step of the loop.
// Preconditions: BLOCK is a power of two; blockDim.x == BLOCK.
#pragma once

namespace warplab::reduction {

template <unsigned BLOCK, class T>
__global__ void reduce_interleaved_divergent(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_in[i] : T(0);
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}

}  // namespace warplab::reduction
