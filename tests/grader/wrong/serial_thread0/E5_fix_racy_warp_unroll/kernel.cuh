// Known wrong (E5): right sum of squares, and no race, because there is no
// parallel tail: after the tree leaves 64 partial sums, thread 0 adds them
// alone. "No race" and "no __syncthreads() in the tail" would hold vacuously.
//
// Expected verdict: `correct` passes (4 points); `no_race` and
// `warp_level_tail` fail on the shape: the tree's writers are 256, 128, 64,
// then 1 (thread 0): 64 values do not become 1 in one round, neither in
// shared memory (a round halves them) nor in a warp (no shuffle). Score 4/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum_squares(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int x = (i < n) ? in[i] : 0;
    sdata[tid] = x * x;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) {  // WRONG: one thread adds the last 64 sums
        int sum = 0;
        for (unsigned k = 0; k < 64; ++k) sum += sdata[k];
        sdata[0] = sum;
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
