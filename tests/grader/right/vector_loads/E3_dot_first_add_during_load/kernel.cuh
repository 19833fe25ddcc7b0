// Right but different (E3): thread tid of block b takes the adjacent pair
// p = b*BLOCK + tid, elements 2p and 2p + 1 of each vector, read as one int2
// (8-byte aligned: the index is even); a lone last element of an odd n is read
// as an int. Block b covers [2*BLOCK*b, 2*BLOCK*(b+1)).
//
// Expected verdict: full marks. dot_blocks gives ceil(n / (2*BLOCK)); at
// n = 4096, block 256, every thread of block 0 loads 16 bytes (two ints of a,
// two of b, in two 8-byte loads) and the block covers 512 elements of each
// vector once: the shape is counted in bytes, not in load instructions.
#pragma once
namespace exercise {
template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned n)
{
    return n / (2 * BLOCK) + (n % (2 * BLOCK) != 0);
}
template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__ a, const int* __restrict__ b, int* partial, unsigned n)
{
    __shared__ int sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    const unsigned p = blockIdx.x * BLOCK + tid;  // pair index
    const unsigned i = 2 * p;
    int sum = 0;
    if (i + 1 < n) {
        const int2 x = reinterpret_cast<const int2*>(a)[p];
        const int2 y = reinterpret_cast<const int2*>(b)[p];
        sum = x.x * y.x + x.y * y.y;
    } else if (i < n) {
        sum = a[i] * b[i];
    }
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}
}  // namespace exercise
