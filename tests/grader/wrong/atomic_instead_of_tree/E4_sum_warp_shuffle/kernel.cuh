// Known wrong (E4): right sum, with atomics instead of the tree: every thread
// atomicAdd-s its element into the block's slot out[blockIdx.x]. There is no
// shared memory and no warp stage at all.
//
// Expected verdict: `correct` passes (4 points); `shuffle_tail` fails (block
// 0 made no warp shuffle); `no_race` fails on the shape (no thread writes
// shared memory: "threads writing shared memory in each barrier interval of
// block 0: none"). Score 4/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    if (tid == 0) out[blockIdx.x] = 0;
    __syncthreads();
    if (i < n) atomicAdd(&out[blockIdx.x], in[i]);  // WRONG: BLOCK atomics on one word, no tree
}

}  // namespace exercise
