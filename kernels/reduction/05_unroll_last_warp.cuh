// Reduction v5: unroll the last warp, correct on Volta and later
// (Harris, "Optimizing Parallel Reduction in CUDA", kernel 5).
//
// Idea: once 32 or fewer threads are active, they all sit in warp 0. The last
//   six steps need no block barrier: a warp synchronisation is enough, and the
//   loop can be unrolled.
// Changed from v4: the loop stops at s > 32; warp 0 finishes with an unrolled
//   tail in which __syncwarp() separates each read from the next write. Harris's
//   original tail relied on implicit warp lockstep and `volatile` (kept as the
//   marked variant v5-racy): since Volta the lanes of a warp may run
//   independently, so that tail is a data race.
// Expected effect: six fewer __syncthreads() per block and no loop overhead
//   in the tail. The trace shows the tail as warp-collective steps with no
//   block barrier, and no bank conflict anywhere.
// Preconditions: BLOCK is a power of two, at least 64; blockDim.x == BLOCK.
#pragma once

namespace warplab::reduction {

// Warp 0 adds sdata[tid + 32], +16, ..., +1 into sdata[tid]. Each lane keeps its
// running sum in a register; __syncwarp() orders every read before the next write.
template <class T>
__device__ void warp_reduce_synced(T* sdata, unsigned tid)
{
    T v = sdata[tid];
    v += sdata[tid + 32]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 16]; __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 4];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 2];  __syncwarp(); sdata[tid] = v; __syncwarp();
    v += sdata[tid + 1];  __syncwarp(); sdata[tid] = v; __syncwarp();
}

template <unsigned BLOCK, class T>
__global__ void reduce_unroll_last_warp(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64, "the warp tail reads sdata[tid + 32]: BLOCK >= 64");
    __shared__ T sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T sum = (i < n) ? g_in[i] : T(0);
    if (i + blockDim.x < n) sum += g_in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid < 32) warp_reduce_synced<T>(sdata, tid);

    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}

}  // namespace warplab::reduction
