// Right but different (E5): the solution's __syncwarp() tail, then one
// __syncthreads() after it that every thread of the block reaches, before
// thread 0 writes the block's sum: it orders nothing that needed ordering.
//
// Expected verdict: full marks. The barrier ends the tail's barrier interval
// (32 threads working), but no round of the tail comes after it: the tail's
// rounds all stay in one interval, synchronised by __syncwarp().
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum_squares(const int* __restrict__ in, int* out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64, "the warp tail reads sdata[tid + 32]: BLOCK >= 64");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int x = (i < n) ? in[i] : 0;
    sdata[tid] = x * x;
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid < 32) {
        int v = sdata[tid];
        for (unsigned s = 32; s > 0; s >>= 1) {
            v += sdata[tid + s];
            __syncwarp();
            sdata[tid] = v;
            __syncwarp();
        }
    }

    __syncthreads();  // harmless: every thread of the block reaches it, after the warp stage
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
