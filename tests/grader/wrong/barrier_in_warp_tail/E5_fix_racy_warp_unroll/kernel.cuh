// Known wrong (E5): "fixes" the race with __syncthreads() inside
// `if (tid < 32)`: threads 32..255 never reach that barrier, they exit.
// Since Volta a barrier waits only for the threads that have not exited, so
// warp 0 passes it alone and the sum is right (the emulator warns that the
// others exited before it), but the tail is no longer warp-level.
//
// Expected verdict: `correct` passes; `warp_level_tail` fails: the tail's
// rounds are barrier intervals of 32 writers each (not the tree's halving),
// and so does `no_race`, which is graded only with the tree's shape. 4/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum_squares(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int x = (i < n) ? in[i] : 0;
    sdata[tid] = x * x;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        for (unsigned s = 32; s > 0; s >>= 1) {
            int v = sdata[tid] + sdata[tid + s];
            __syncthreads();  // WRONG: only warp 0 gets here
            sdata[tid] = v;
            __syncthreads();
        }
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
