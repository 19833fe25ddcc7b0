// E5 solution: the warp tail with __syncwarp() (reduction v5's step).
//
// Each lane keeps its running sum in a register. In every round it reads the
// partner's word, __syncwarp() (every read of the round is done), writes its
// own word, __syncwarp() (every write is visible before the next read).
// (A shuffle tail, as in E4, is a fix too.)
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

    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
