// Known wrong (E5): no warp-level tail at all: the block's loop goes on down
// to one sum with a __syncthreads() after every round, 32, 16, 8, 4, 2 and 1
// threads working. Right, and race-free, but the step E5 teaches (the last
// warp without block barriers) is skipped.
//
// Expected verdict: `correct` and `no_race` pass; `warp_level_tail` fails at
// step 3, the round of 32 threads that ends at a __syncthreads() with rounds
// still to come. 8/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum_squares(const int* __restrict__ in, int* out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64, "the warp tail reads sdata[tid + 32]: BLOCK >= 64");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int x = (i < n) ? in[i] : 0;
    sdata[tid] = x * x;
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    for (unsigned s = 32; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
