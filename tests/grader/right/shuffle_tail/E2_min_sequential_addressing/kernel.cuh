// Right but different (E2): solved further than asked: sequential addressing
// (reduction v3) down to 64 values, then warp 0 alone finishes with shuffles
// (reduction v8's tail).
//
// Expected verdict: full marks. The tree halves 256 -> 128 -> 64 in shared
// memory (writers 256, 128, 64), then warp 0 folds two values a lane as it
// reads them (64 -> 32) and halves them in 5 shuffle rounds (32 -> 1): 8
// rounds, log2(256). No shared access is bank-conflicted: lane tid reads
// words tid and tid + s, consecutive words in distinct banks.
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

    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = min(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid < 32) {
        int m = min(sdata[tid], sdata[tid + 32]);
        for (int offset = 16; offset > 0; offset /= 2) m = min(m, __shfl_down_sync(0xffffffffu, m, offset));
        if (tid == 0) out[blockIdx.x] = m;
    }
}

}  // namespace exercise
