// Right but different (E1): solved further than asked: the first quarter of
// the block loads the block's elements four at a time (one int4 load a
// thread) and folds them, then sequential addressing halves 64 -> 1.
//
// Expected verdict: full marks. Writers of shared memory: 64 (each folded 4
// elements: 64 x 4 = 256), then 32, 16, 8, 4, 2, 1: log2(256) = 8 rounds, 2
// of them in the load. Steps with 32 or more active threads run whole warps
// (threads 0-63, then 0-31). The last, partial block falls back to one
// guarded element a time (an int4 would read past n).
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, int* out, unsigned n)
{
    constexpr unsigned kQuarter = BLOCK / 4;
    __shared__ int sdata[kQuarter];
    unsigned tid = threadIdx.x;
    unsigned first = blockIdx.x * BLOCK + 4 * tid;
    if (tid < kQuarter) {
        int m = INT_MIN;
        if (first + 3 < n) {
            const int4 v = reinterpret_cast<const int4*>(in)[first / 4];
            m = max(max(v.x, v.y), max(v.z, v.w));
        } else {
            for (unsigned k = 0; k < 4; ++k)
                if (first + k < n) m = max(m, in[first + k]);
        }
        sdata[tid] = m;
    }
    __syncthreads();

    for (unsigned s = kQuarter / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = max(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
