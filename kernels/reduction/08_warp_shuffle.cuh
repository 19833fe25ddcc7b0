// Reduction v8: warp shuffle for the warp-level reduction (Filipovič, "Code Optimizations").
//
// Idea: inside one warp, lanes can read each other's registers with
//   __shfl_down_sync. The last six steps need no shared memory at all.
// Changed from v7: each thread keeps its running sum in a register; the tree
//   steps write it back to shared memory as before, but warp 0 finishes with
//   five shuffle rounds (offsets 16, 8, 4, 2, 1) after adding sdata[tid + 32].
// Expected effect: the warp tail issues no shared-memory instruction and no
//   __syncwarp; each shuffle both moves data and synchronises the lanes.
//   The trace shows five steps with shuffles and no shared access.
// Preconditions: BLOCK is a power of two from 64 to 1024; blockDim.x == BLOCK.
#pragma once

namespace warplab::reduction {

template <unsigned BLOCK, class T>
__global__ void reduce_warp_shuffle(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64 && BLOCK <= 1024, "BLOCK is a power of two, 64..1024");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (BLOCK * 2) + threadIdx.x;
    unsigned grid_size = BLOCK * 2 * gridDim.x;
    T sum = T(0);
    while (i < n) {
        sum += g_in[i];
        if (i + BLOCK < n) sum += g_in[i + BLOCK];
        i += grid_size;
    }
    sdata[tid] = sum;
    __syncthreads();

    if (BLOCK >= 1024) { if (tid < 512) { sdata[tid] = sum = sum + sdata[tid + 512]; } __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) { sdata[tid] = sum = sum + sdata[tid + 256]; } __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) { sdata[tid] = sum = sum + sdata[tid + 128]; } __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) { sdata[tid] = sum = sum + sdata[tid + 64]; } __syncthreads(); }

    if (tid < 32) {
        sum += sdata[tid + 32];
        for (int offset = 16; offset > 0; offset /= 2) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
    }

    if (tid == 0) g_out[blockIdx.x] = sum;
}

}  // namespace warplab::reduction
