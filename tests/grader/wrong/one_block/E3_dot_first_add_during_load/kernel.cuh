// Known wrong (E3): right dot product, and a launch of "at most half the
// blocks": one block, whose threads loop over the whole vectors. Half the
// blocks is earned by two elements per thread, not by one block doing
// everything.
//
// Expected verdict: `correct` passes; `half_the_blocks` passes its block
// count (1 is at most ceil(n / (2*BLOCK))) but fails on the shape: at n = 4096,
// block 256, block 0 loads all 4096 elements of each vector, 16 per thread,
// where each block covers 2*BLOCK = 512, two per thread. Score 5/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned)
{
    return 1;  // WRONG: one block for any n
}

template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__ a, const int* __restrict__ b, int* partial, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    int sum = 0;
    for (unsigned i = tid; i < n; i += BLOCK) sum += a[i] * b[i];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}  // namespace exercise
