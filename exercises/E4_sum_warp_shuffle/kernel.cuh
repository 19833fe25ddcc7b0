// E4: sum with a warp-shuffle tail (mirrors reduction v7 -> v8).
//
// Each block adds up its BLOCK elements, in[blockIdx.x * BLOCK ...], and writes
// the sum to out[blockIdx.x]. The tree in shared memory stops at 64 partial
// sums; warp 0 must finish the last 64 -> 1 without shared memory: the lanes
// read each other's registers with __shfl_down_sync.
//
// Grade it:  build/warplab grade E4        (README.md says what is checked)
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64, "the warp stage adds sdata[tid + 32]: BLOCK >= 64");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int sum = (i < n) ? in[i] : 0;  // each thread keeps its running sum in a register
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] = sum = sum + sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid < 32) {
        sum += sdata[tid + 32];  // 64 -> 32 partial sums, one per lane of warp 0
        // TODO: the warp stage. Add the 32 lanes' sums with __shfl_down_sync at
        // offsets 16, 8, 4, 2, 1 (full mask 0xffffffff), so that lane 0 ends up
        // with the block's sum. No shared memory, no __syncwarp() needed.
    }

    if (tid == 0) out[blockIdx.x] = sum;
}

}  // namespace exercise
