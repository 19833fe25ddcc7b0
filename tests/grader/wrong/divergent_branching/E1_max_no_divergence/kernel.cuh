// Known wrong (E1): right max, but reduction v1's divergent branching:
// `if (tid % (2 * s) == 0)`.
//
// Expected verdict: `correct` passes; `whole_warps` fails at step 1 (s = 1,
// the first step after the load): the even threads work, 16 lanes in each of
// the 8 warps of a 256-thread block: "step 1: 128 threads active in 8 warps,
// 8 of them partially active". Score 5/10.
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
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] = max(sdata[tid], sdata[tid + s]);  // WRONG: divergent
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
