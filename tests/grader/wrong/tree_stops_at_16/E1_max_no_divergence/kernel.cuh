// Known wrong (E1): sequential addressing 256 -> 128 -> 64 -> 32 -> 16,
// then thread 0 alone folds the 16 values left, in a loop over shared memory.
// The tree's first rounds are right; the rest is one thread's serial work,
// which a level of warp 0 written once and then read by one loop shows.
//
// Expected verdict: `correct` passes; the shape fails: "256, 128, 64, 32, 16, then none",
// and the hint says the tree stops at 16 values. 5/10.
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
    for (unsigned s = BLOCK / 2; s >= 16; s >>= 1) {
        if (tid < s) sdata[tid] = max(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) {
        int m = sdata[0];
        for (unsigned k = 1; k < 16; ++k) m = max(m, sdata[k]);
        out[blockIdx.x] = m;
    }
}
}  // namespace exercise
