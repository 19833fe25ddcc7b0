// Right but warned of (E1): the tree of sequential addressing, with a bounds
// check written i >= 0 && i < n on an unsigned i. Its first half always
// holds, so the kernel is right, and nvcc warns "pointless comparison of
// unsigned integer with zero" at line 19.
//
// Expected verdict: full marks, and the report shows nvcc's warning with the
// line it quotes.
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i >= 0 && i < n) ? in[i] : INT_MIN;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = max(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
