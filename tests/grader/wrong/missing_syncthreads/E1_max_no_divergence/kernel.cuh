// Known wrong (E1): the tree has no __syncthreads() between its steps.
//
// Expected verdict: `correct` fails on the first case with a data race: at
// s = 1 thread 1 writes sdata[2]; at s = 2 thread 0 reads sdata[2]. Both are
// lanes of warp 0 and nothing orders the two, so under the independent
// schedule the emulator reports "data race on shared memory" whichever lane
// runs first.
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
        unsigned index = 2 * s * tid;
        if (index < BLOCK) sdata[index] = max(sdata[index], sdata[index + s]);
        // WRONG: no __syncthreads() here
    }
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
