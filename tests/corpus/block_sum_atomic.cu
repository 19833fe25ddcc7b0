// Sums of floats and doubles: a block tree in shared memory or a warp
// shuffle tree, then one atomicAdd per block into the total.
//
// Idea: the end of a typical student reduction: instead of a second pass over
//   the block sums, thread 0 adds its block's sum to out[0] atomically.
// Changed: nothing; sum_floats folds in shared memory (sequential
//   addressing), sum_doubles folds each warp with __shfl_down_sync on doubles
//   and the warps' sums in shared memory.
// Expected effect: the total of the input, in some order of additions (exact
//   when the values are small integers).
// Preconditions: blockDim.x == kBlock; *out starts at zero.
#include "layout.h"

constexpr unsigned kBlock = corpus::kSumBlock;

__global__ void sum_floats(const float* __restrict__ in, unsigned n, float* out)
{
    __shared__ float sdata[kBlock];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * kBlock + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = kBlock / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(&out[0], sdata[0]);
}

__global__ void sum_doubles(const double* __restrict__ in, unsigned n, double* out)
{
    __shared__ double warp_sums[kBlock / 32];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * kBlock + tid;
    double v = i < n ? in[i] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % 32 == 0) warp_sums[tid / 32] = v;
    __syncthreads();
    if (tid == 0) {
        double total = 0;
        for (unsigned w = 0; w < kBlock / 32; ++w) total += warp_sums[w];
        atomicAdd(&out[0], total);
    }
}
