// E2 solution: min-reduction with sequential addressing (reduction v3's step).
//
// At stride s = BLOCK/2, ..., 1 thread tid < s folds sdata[tid + s] into
// sdata[tid]: the 32 lanes of a warp touch 32 consecutive words, one per bank.
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_min(const int* __restrict__ in, int* out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : INT_MAX;  // INT_MAX: a min never picks the padding
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = min(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }

    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
