// Known wrong (E4): right sum, no tree and no warp stage: thread 0 adds the
// block's BLOCK elements alone. A single thread has no race to report, so
// "no race" would hold vacuously.
//
// Expected verdict: `correct` passes (4 points); `shuffle_tail` fails (block
// 0 made no warp shuffle); `no_race` fails on the shape: shared-memory writers
// per barrier interval of block 0 are 256 and then none, where the tree has
// 128, 64 and then the warp stage. Score 4/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    if (tid == 0) {  // WRONG: one thread does the block's work
        int sum = 0;
        for (unsigned k = 0; k < BLOCK; ++k) sum += sdata[k];
        out[blockIdx.x] = sum;
    }
}

}  // namespace exercise
