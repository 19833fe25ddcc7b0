// Known wrong (E2): right min, no tree: thread 0 walks the block's BLOCK
// elements alone. One lane reading one word at a time never conflicts, so
// "zero bank conflicts" would hold vacuously.
//
// Expected verdict: `correct` passes; `no_bank_conflicts` fails on the shape:
// shared-memory writers per barrier interval of block 0 are 256 (the load)
// and then none, where a tree has 128, 64, ..., 1. Score 5/10.
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
    if (tid == 0) {  // WRONG: one thread does the block's work
        int m = sdata[0];
        for (unsigned k = 1; k < BLOCK; ++k) m = min(m, sdata[k]);
        out[blockIdx.x] = m;
    }
}

}  // namespace exercise
