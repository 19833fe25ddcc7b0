// E1: max-reduction without divergent branching (mirrors reduction v1 -> v2).
//
// Each block finds the max of its BLOCK elements, in[blockIdx.x * BLOCK ...],
// and writes it to out[blockIdx.x]; the grader combines the blocks' results.
// The load and the write-out are done. The tree in between is yours.
//
// Grade it:  build/warplab grade E1        (README.md says what is checked)
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
        // TODO: fold pairs s apart into the smaller index, so that sdata[0] ends
        // up with the block's max: sdata[index] = max(sdata[index], sdata[index + s]).
        //
        // Reduction v1 picks the working threads with `if (tid % (2 * s) == 0)`:
        // right, but from the first step on every warp is only partly active.
        // Pick them so that the working threads are the FIRST ones of the block
        // (reduction v2: index = 2 * s * tid), and whole warps retire together.
        __syncthreads();
    }

    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
