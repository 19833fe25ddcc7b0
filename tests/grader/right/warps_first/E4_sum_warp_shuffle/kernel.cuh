// Right but different (E4): the warps first, as CUB's block reduction does:
// each warp sums its 32 elements with 5 shuffle rounds, lane 0 of each warp
// writes the warp's sum to shared memory, and warp 0 sums the BLOCK / 32
// partials with shuffles again.
//
// Expected verdict: full marks. Writers of shared memory: 8 (the warps'
// lanes 0, after 5 shuffle rounds each: 8 x 2^5 = 256), then warp 0 folds the
// 8 in 5 more rounds (3 would do; lanes 8-31 add zeros). No shared access
// between a warp's first and last shuffle, no race under any lane order.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int warp_sums[BLOCK / 32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    unsigned i = blockIdx.x * BLOCK + tid;
    int sum = (i < n) ? in[i] : 0;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();

    if (warp == 0) {
        sum = (lane < BLOCK / 32) ? warp_sums[lane] : 0;
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0) out[blockIdx.x] = sum;
    }
}

}  // namespace exercise
