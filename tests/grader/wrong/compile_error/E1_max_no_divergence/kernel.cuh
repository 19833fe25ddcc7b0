// Known wrong (E1): does not compile: `stride` is not declared (the loop
// variable is `s`).
//
// Expected verdict: every check fails with "not run: the kernel does not
// compile"; the report quotes the compiler's first error, at this file
// (kernel.cuh), and the score is 0/10.
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
        unsigned index = 2 * stride * tid;  // WRONG: no such variable
        if (index < BLOCK) sdata[index] = max(sdata[index], sdata[index + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
