// Known wrong (E4): sums only the first 99% of the input (i < n * 99 / 100).
//
// Expected verdict: `correct` fails on the first case (pattern: n = 1000,
// in[i] = 300 - |i - 701|, 4 blocks of 256). 990 elements are summed: the
// last ten, in[990..999] = 1001 - i = 11, 10, ..., 2, are missing, together
// (11 + 2) * 10 / 2 = 65. Blocks 0-2 (in[0..767]) are right; block 3 holds
// in[768..999] = 233, 232, ..., 2, which sum to (233 + 2) * 232 / 2 = 27260,
// and writes 27260 - 65 = 27195. So the grader reports
//   "the sum is 9333; block 3 of 4 wrote 27195 for in[768 .. 999]", expected
//   "9398 (block 3 should write 27260)".
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int sum = (i < n * 99 / 100) ? in[i] : 0;  // WRONG: i < n
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        sum += sdata[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

}  // namespace exercise
