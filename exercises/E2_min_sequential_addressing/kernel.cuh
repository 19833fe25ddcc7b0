// E2: min-reduction with sequential addressing (mirrors reduction v2 -> v3).
//
// Each block finds the min of its BLOCK elements, in[blockIdx.x * BLOCK ...],
// and writes it to out[blockIdx.x]; the grader combines the blocks' results.
// The load and the write-out are done. The tree in between is yours, and it
// must not cause a single shared-memory bank conflict.
//
// Grade it:  build/warplab grade E2        (README.md says what is checked)
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

    // TODO: the tree. Reduction v2 would write
    //
    //     for (unsigned s = 1; s < BLOCK; s *= 2) {
    //         unsigned index = 2 * s * tid;
    //         if (index < BLOCK) sdata[index] = min(sdata[index], sdata[index + s]);
    //         __syncthreads();
    //     }
    //
    // which is right but puts the lanes of a warp on words 2*s apart: 2, 4, 8
    // of them in one bank. Run the stride the other way (s = BLOCK/2 down to 1)
    // so that a warp reads 32 consecutive words (reduction v3).

    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
