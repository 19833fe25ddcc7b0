// E1 solution: max-reduction with a strided index (reduction v2's step).
//
// At stride s, thread tid works on index 2*s*tid: the working threads are the
// first BLOCK/(2s) of the block, so a warp is either fully busy or idle while
// 32 or more threads work. (Reduction v3's `tid < s` would pass as well.)
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, int* out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : INT_MIN;  // INT_MIN: a max never picks the padding
    __syncthreads();

    for (unsigned s = 1; s < BLOCK; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < BLOCK) {
            sdata[index] = max(sdata[index], sdata[index + s]);
        }
        __syncthreads();
    }

    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
