// Right but different (E3): solved further than asked: four elements a thread
// (i, i + BLOCK, i + 2*BLOCK, i + 3*BLOCK), the first add during the load three
// times, and a quarter of the naive blocks, as Harris's later reductions do.
//
// Expected verdict: full marks. dot_blocks gives ceil(n / (4*BLOCK)), at most
// ceil(n / (2*BLOCK)); at n = 4096, block 256, every thread of block 0 loads 4
// elements of each vector (32 bytes) and the block covers 1024 of each once:
// more a thread than asked (up to 8) is not less.
#pragma once
namespace exercise {
template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned n)
{
    return (n + 4 * BLOCK - 1) / (4 * BLOCK);
}
template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__ a, const int* __restrict__ b, int* partial, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (4 * BLOCK) + tid;
    int sum = 0;
#pragma unroll
    for (unsigned k = 0; k < 4; ++k)
        if (i + k * BLOCK < n) sum += a[i + k * BLOCK] * b[i + k * BLOCK];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}
}  // namespace exercise
