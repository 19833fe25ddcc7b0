// Reduction v2: interleaved addressing with a strided index
// (Harris, "Optimizing Parallel Reduction in CUDA", kernel 2).
//
// Idea: keep the tree of v1, but let the first threads of the block do the
//   work: thread tid handles element index = 2*s*tid.
// Changed from v1: the `tid % (2*s)` branch becomes a strided index, so the
//   active threads are contiguous and whole warps retire together.
// Expected effect: no partially-active warp while 32 or more threads are
//   active, and no modulo. The price is shared-memory bank conflicts: at
//   stride s, lanes of a warp hit words 2*s apart, which fall into the same
//   bank 2, 4, 8, ... ways. (Harris's G80 ran it much faster than v1. On an
//   H100 the conflicts and v1's cheap predicated divergence pull in opposite
//   directions: see the recorded results in labs/reduction/walkthrough.md.)
// Preconditions: BLOCK is a power of two; blockDim.x == BLOCK.
#pragma once

namespace warplab::reduction {

template <unsigned BLOCK, class T>
__global__ void reduce_interleaved_strided(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_in[i] : T(0);
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x) {
            sdata[index] += sdata[index + s];
        }
        __syncthreads();
    }

    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}

}  // namespace warplab::reduction
