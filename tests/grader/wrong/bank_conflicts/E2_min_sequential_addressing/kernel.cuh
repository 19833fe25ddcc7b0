// Known wrong (E2): right min, but with reduction v2's interleaved addressing.
//
// Expected verdict: `correct` passes; `no_bank_conflicts` fails at step 1
// (s = 1, the first step after the load): thread tid reads words 2*tid and
// 2*tid + 1, so the 32 lanes of warp 0 read words 0, 2, ..., 62 (or 1, ...,
// 63): 16 banks with 2 words each, "2-way bank-conflicted (2 wavefronts,
// ideal 1)", "a shared load by 32 lanes of warp 0".
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_min(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : INT_MAX;
    __syncthreads();
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        unsigned index = 2 * s * tid;  // WRONG: lanes 2*s words apart share banks
        if (index < BLOCK) sdata[index] = min(sdata[index], sdata[index + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
