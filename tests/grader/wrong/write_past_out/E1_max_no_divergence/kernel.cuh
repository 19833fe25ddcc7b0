// Known wrong (E1): the right tree, but each block writes its max one slot
// too far, out[blockIdx.x + 1]: the last block writes past the end of out.
//
// Expected verdict: `correct` fails on its first case, the pattern (n = 1000,
// 4 blocks of 256, so out has 4 elements), with the emulator's fault: block
// (3,0,0), thread (0,0,0), an out-of-bounds store to argument 1 (out, counted
// from 0) at element 4, "outside its 4 elements", at this file's write-out
// line; the property is not graded. Score 0/10.
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : INT_MIN;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = max(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x + 1] = sdata[0];  // WRONG: one past the block's slot
}

}  // namespace exercise
