// Known wrong (E1): right max, no tree: after the load, thread 0 walks the
// block's BLOCK elements alone. No warp is ever partially active while 32 or
// more threads work, because after the load only one thread works: the
// property would hold vacuously.
//
// Expected verdict: `correct` passes; `whole_warps` fails on the shape: the
// threads writing shared memory in each barrier interval of block 0 are 256
// (the load) and then none, where a tree has 128, 64, 32, 16, 8, 4, 2, 1.
// Score 5/10.
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
    if (tid == 0) {  // WRONG: one thread does the block's work
        int m = sdata[0];
        for (unsigned k = 1; k < BLOCK; ++k) m = max(m, sdata[k]);
        out[blockIdx.x] = m;
    }
}

}  // namespace exercise
