// Known wrong (E2): off by one. The tree stops at s > 1, one step early, so
// sdata[0] ends up with the min of the EVEN threads' elements only.
//
// Expected verdict: `correct` fails on the first case (pattern: n = 1000,
// in[i] = |i - 701| - 300, 4 blocks of 256). Block 0 holds in[0..255], falling
// from 401 to 146 at i = 255 (odd); its even threads' min is in[254] = 147.
// The true min -300 is at i = 701 (block 2, thread 189, odd): block 2 writes
// the even neighbour's |700 - 701| - 300 = -299. Blocks 1 and 3 write
// in[510] = -109 and in[768] = -233. So the grader reports
//   "the min is -299; block 0 of 4 wrote 147 for in[0 .. 255]", expected
//   "-300 (block 0 should write 146)".
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
    for (unsigned s = BLOCK / 2; s > 1; s >>= 1) {  // WRONG: s > 0
        if (tid < s) sdata[tid] = min(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
