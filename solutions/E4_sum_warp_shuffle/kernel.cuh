// E4 solution: the warp stage with shuffles (reduction v8's step).
//
// After the tree leaves 64 partial sums, lane t of warp 0 adds sdata[t + 32]
// to its own and then five shuffle rounds (offsets 16, 8, 4, 2, 1) add the
// lanes' registers: lane 0 holds the block's sum. Each shuffle both moves the
// values and synchronises the warp, so there is no shared memory to race on.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64, "the warp stage adds sdata[tid + 32]: BLOCK >= 64");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int sum = (i < n) ? in[i] : 0;
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] = sum = sum + sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid < 32) {
        sum += sdata[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
    }

    if (tid == 0) out[blockIdx.x] = sum;
}

}  // namespace exercise
