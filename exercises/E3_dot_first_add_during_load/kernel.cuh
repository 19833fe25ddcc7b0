// E3: dot product with the first add during the load (mirrors reduction v3 -> v4).
//
// Each block adds up the products a[i] * b[i] of its part of the vectors and
// writes the sum to partial[blockIdx.x]; the grader adds the partials. The
// tree (reduction v3's sequential addressing) is done. In v3 half of the
// threads are idle from the first step on: make every block cover 2*BLOCK
// elements, and launch half as many blocks.
//
// Grade it:  build/warplab grade E3        (README.md says what is checked)
#pragma once

namespace exercise {

// The grid the grader launches for n elements.
template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned n)
{
    // TODO: every block covers 2*BLOCK elements: half the naive count, rounded up.
    return (n + BLOCK - 1) / BLOCK;
}

template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__ a, const int* __restrict__ b, int* partial, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree needs a power-of-two block");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BLOCK) + tid;  // block b covers [2*BLOCK*b, 2*BLOCK*(b+1))
    int sum = (i < n) ? a[i] * b[i] : 0;
    // TODO: the first add during the load: also add the product BLOCK elements
    // further on, when it is inside the vectors.
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
