// E3 solution: dot product with the first add during the load (reduction v4's step).
//
// Thread tid of block b adds the products at i = 2*BLOCK*b + tid and i + BLOCK
// before the tree, so a block covers 2*BLOCK elements and the launch needs
// ceil(n / (2*BLOCK)) blocks, half the naive count.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned n)
{
    return (n + 2 * BLOCK - 1) / (2 * BLOCK);
}

template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__ a, const int* __restrict__ b, int* partial, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    int sum = (i < n) ? a[i] * b[i] : 0;
    if (i + BLOCK < n) sum += a[i + BLOCK] * b[i + BLOCK];
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) partial[blockIdx.x] = sdata[0];
}

}  // namespace exercise
