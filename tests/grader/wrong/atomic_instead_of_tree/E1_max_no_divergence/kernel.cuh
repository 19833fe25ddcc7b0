// Known wrong (E1): right max, with atomics instead of the tree: every
// thread atomicMax-es its element into one shared word. All warps are whole,
// so "no partially-active warp" would hold without any tree.
//
// Expected verdict: `correct` passes; `whole_warps` fails on the shape: the
// threads writing shared memory in each barrier interval of block 0 are 1
// (thread 0 sets the word) and 256 (the atomics), where a tree has 256 (the
// load), then 128, 64, ..., 1. Score 5/10.
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int best;
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    if (tid == 0) best = INT_MIN;
    __syncthreads();
    if (i < n) atomicMax(&best, in[i]);  // WRONG: BLOCK atomics on one word, no tree
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = best;
}

}  // namespace exercise
