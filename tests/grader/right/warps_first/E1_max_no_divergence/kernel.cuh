// Right but different (E1): the warps first, through cooperative groups, as
// the CUDA samples' reductions write it: each warp folds its 32 elements with
// cg::reduce (5 shuffle rounds, whole warps), lane 0 of each warp writes the
// warp's max to shared memory, and warp 0 folds the BLOCK / 32 maxima again.
//
// Expected verdict: full marks. Writers of shared memory: 8 (the warps' lanes
// 0, after 5 rounds each: 8 x 2^5 = 256), then warp 0's 5 rounds (8 x 2^5 >= 8
// values, lanes 8-31 fold INT_MIN). Warp 0's read of the 8 maxima has 8 active
// lanes, in a step with 32 active threads: 8 threads of the block make that
// access, too few to fill a warp however they were picked, so it counts as no
// divergence. Reduction v1's tree (tests/grader/wrong/divergent_branching)
// still fails: its first fold is made by 128 threads in 8 partial warps.
#pragma once
#include <climits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace exercise {
namespace cg = cooperative_groups;

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int warp_max[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    int v = i < n ? in[i] : INT_MIN;
    v = cg::reduce(warp, v, cg::greater<int>());
    if (warp.thread_rank() == 0) warp_max[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < BLOCK / 32 ? warp_max[warp.thread_rank()] : INT_MIN;
        v = cg::reduce(warp, v, cg::greater<int>());
        if (warp.thread_rank() == 0) out[blockIdx.x] = v;
    }
}

}  // namespace exercise
