// Right but different (E4): the given shared tree down to 64 sums, then warp
// 0 folds sdata[tid + 32] into its register and finishes with cooperative
// groups' cg::reduce(warp, sum, cg::plus<int>()) over a 32-thread tile, as the
// CUDA documentation writes a warp reduction.
//
// Expected verdict: full marks. On sm_90 nvcc compiles cg::reduce of ints to
// one redux.sync (__reduce_add_sync) of all 32 lanes, no shuffle: it folds the
// 32 sums at once, which counts as the 5 shuffle rounds, with no shared-memory
// access in the warp stage.
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace exercise {
namespace cg = cooperative_groups;
template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    cg::thread_block block = cg::this_thread_block();
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int sum = (i < n) ? in[i] : 0;
    sdata[tid] = sum;
    block.sync();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        block.sync();
    }
    if (tid < 32) {
        cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
        sum += sdata[tid + 32];
        sum = cg::reduce(warp, sum, cg::plus<int>());
    }
    if (tid == 0) out[blockIdx.x] = sum;
}
}  // namespace exercise
