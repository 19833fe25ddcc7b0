// Known wrong (E3): a right dot product, but reduction v3's launch: one
// product per thread, ceil(n / BLOCK) blocks.
//
// Expected verdict: `correct` passes; `half_the_blocks` fails on the first
// size, n = 1000 at block 256: "dot_blocks gives 4 blocks (the naive launch:
// 4)", expected "at most ceil(n / (2*BLOCK)) = 2" (ceil(1000 / 512) = 2).
#pragma once

namespace exercise {

template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned n)
{
    return (n + BLOCK - 1) / BLOCK;  // WRONG: the naive count
}

template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__ a, const int* __restrict__ b, int* partial, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? a[i] * b[i] : 0;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}  // namespace exercise
