// Known wrong (E3): the solution's kernel, but dot_blocks computes
// (n + BLOCK) / (2*BLOCK), which rounds down where n mod 2*BLOCK is in
// (0, BLOCK]: n = 1 at block 256 gets (1 + 256) / 512 = 0 blocks.
//
// Expected verdict: `correct` fails at n = 1 ("returned 0"); `half_the_blocks`
// is graded (the main case, n = 4096, is right) and fails: 0 blocks is no
// launch, however few it is. 0/10.
#pragma once
namespace exercise {
template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned n) { return (n + BLOCK) / (2 * BLOCK); }
template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__ a, const int* __restrict__ b, int* partial, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    int sum = (i < n) ? a[i] * b[i] : 0;
    if (i + BLOCK < n) sum += a[i + BLOCK] * b[i + BLOCK];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}
}  // namespace exercise
