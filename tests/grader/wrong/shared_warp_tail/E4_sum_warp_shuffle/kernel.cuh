// Known wrong (E4): a right, race-free sum, but the warp stage still goes
// through shared memory with __syncwarp() (reduction v5's tail, not v8's).
//
// Steps of block 0 (block 256): step 0 the load, steps 1-2 the tree at
// s = 128 and 64 (each ends at a __syncthreads()), then warp 0's tail, one
// step per __syncwarp(): step 3 = load sdata[tid + 32], first __syncwarp();
// step 4 = store sdata[tid], ...
//
// Expected verdict: `correct` passes and so does `no_race`; `shuffle_tail`
// fails at step 4, the first shared access after the warp's first collective:
// "step 4: a shared-memory store by 32 lanes of warp 0". Score 6/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int sum = (i < n) ? in[i] : 0;
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        for (unsigned s = 32; s > 0; s >>= 1) {  // WRONG: shared memory and __syncwarp()
            sum += sdata[tid + s];
            __syncwarp();
            sdata[tid] = sum;
            __syncwarp();
        }
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

}  // namespace exercise
