// Reduction v5-racy: Harris's original unrolled last warp, kept as a marked
// variant to show the hazard. Do not copy it.
//
// Idea (2007): the 32 threads of warp 0 execute in lockstep, so the tail
//   `sdata[tid] += sdata[tid + s]` for s = 32..1 needs no synchronisation;
//   `volatile` stops the compiler from keeping sdata in registers.
// Changed from v4: as v5, but the tail has no __syncwarp().
// Expected effect: right on pre-Volta GPUs and under the emulator's lockstep
//   schedule. Since Volta, lanes of a warp may be scheduled independently: a
//   lane can read sdata[tid + s] before the lane that owns it has written its
//   sum. The emulator's independent schedule reports the race (and may give a
//   wrong sum); compute-sanitizer --tool racecheck reports a hazard on a GPU.
// Preconditions: BLOCK is a power of two, at least 64; blockDim.x == BLOCK.
#pragma once

namespace warplab::reduction {

template <class T>
__device__ void warp_reduce_volatile(volatile T* sdata, unsigned tid)
{
    sdata[tid] = sdata[tid] + sdata[tid + 32];
    sdata[tid] = sdata[tid] + sdata[tid + 16];
    sdata[tid] = sdata[tid] + sdata[tid + 8];
    sdata[tid] = sdata[tid] + sdata[tid + 4];
    sdata[tid] = sdata[tid] + sdata[tid + 2];
    sdata[tid] = sdata[tid] + sdata[tid + 1];
}

template <unsigned BLOCK, class T>
__global__ void reduce_unroll_last_warp_racy(const T* __restrict__ g_in, T* g_out, unsigned n)
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

    if (tid < 32) warp_reduce_volatile<T>(sdata, tid);

    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}

}  // namespace warplab::reduction
