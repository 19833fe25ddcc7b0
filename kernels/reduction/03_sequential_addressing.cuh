// Reduction v3: sequential addressing (Harris, "Optimizing Parallel Reduction in CUDA", kernel 3).
//
// Idea: fold the upper half of the active range onto the lower half: at
//   stride s (blockDim/2, then /4, ...), thread tid < s adds element tid + s.
// Changed from v2: the loop runs the stride downwards and thread tid works on
//   element tid itself, so a warp reads 32 consecutive words.
// Expected effect: no bank conflicts (consecutive words are in distinct banks)
//   and still no partially-active warp while 32 or more threads are active.
//   Half of the threads are idle from the first step on: v4 attacks that.
// Preconditions: BLOCK is a power of two; blockDim.x == BLOCK.
#pragma once

namespace warplab::reduction {

template <unsigned BLOCK, class T>
__global__ void reduce_sequential_addressing(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_in[i] : T(0);
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
