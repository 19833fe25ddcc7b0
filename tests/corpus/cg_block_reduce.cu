// Block sums with cooperative groups, added into one global total.
//
// Idea: the shuffle reduction written with cooperative groups: the block is
//   cg::this_thread_block(), each warp a cg::tiled_partition<32> whose
//   shfl_down folds its values; each warp's first lane leaves its sum in
//   shared memory, block.sync(), and warp 0 folds those.
// Changed from a raw __shfl_down_sync reduction: no masks or lane arithmetic
//   in user code. sum_with_cg_reduce does the warp folding with cg::reduce.
// Expected effect: the exact integer total; no race (block.sync() orders the
//   shared partial sums).
// Preconditions: blockDim.x is a multiple of the warp size, at most
//   the warp size squared; *total starts at zero.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

constexpr unsigned kWarp = 32;

__device__ int warp_sum_shfl(cg::thread_block_tile<kWarp> warp, int v)
{
    for (unsigned offset = warp.size() / 2; offset > 0; offset /= 2) v += warp.shfl_down(v, offset);
    return v;
}

__device__ int warp_sum_reduce(cg::thread_block_tile<kWarp> warp, int v)
{
    return cg::reduce(warp, v, cg::plus<int>());
}

template <int (*WarpSum)(cg::thread_block_tile<kWarp>, int)>
__device__ void block_sum_into(const int* in, unsigned n, int* total)
{
    __shared__ int partial[kWarp];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<kWarp> warp = cg::tiled_partition<kWarp>(block);

    unsigned i = blockIdx.x * blockDim.x + block.thread_rank();
    int v = WarpSum(warp, i < n ? in[i] : 0);
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = v;
    block.sync();

    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0;
        v = WarpSum(warp, v);
        if (warp.thread_rank() == 0) atomicAdd(total, v);
    }
}

__global__ void sum_with_cg_shfl(const int* __restrict__ in, unsigned n, int* total)
{
    block_sum_into<warp_sum_shfl>(in, n, total);
}

__global__ void sum_with_cg_reduce(const int* __restrict__ in, unsigned n, int* total)
{
    block_sum_into<warp_sum_reduce>(in, n, total);
}
