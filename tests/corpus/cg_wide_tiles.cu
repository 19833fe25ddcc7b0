// Tile sums with cooperative groups, tiles of any documented size.
//
// Idea: cg::tiled_partition<Tile>(block) splits the block into tiles of
//   Tile threads; cg::reduce sums each tile. Tiles wider than a warp (64,
//   128) need block_tile_memory and, on sm_80 and later, keep their barrier
//   and per-warp partial sums in the GPU's reserved shared memory.
// Changed from warp-wide tiles: Tile is a template parameter, explicitly
//   instantiated below for 4 .. 128.
// Expected effect: out[tile] = the sum of the tile's Tile inputs.
// Preconditions: blockDim.x is a multiple of Tile, at most 256.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <unsigned Tile>
__global__ void tile_sums(const int* in, int* out)
{
    __shared__ cg::block_tile_memory<256> tile_scratch;
    cg::thread_block block = cg::this_thread_block(tile_scratch);
    cg::thread_block_tile<Tile> tile = cg::tiled_partition<Tile>(block);
    const unsigned i = blockIdx.x * blockDim.x + block.thread_rank();
    const int sum = cg::reduce(tile, in[i], cg::plus<int>());
    if (tile.thread_rank() == 0) out[i / Tile] = sum;
}

template __global__ void tile_sums<4>(const int*, int*);
template __global__ void tile_sums<16>(const int*, int*);
template __global__ void tile_sums<64>(const int*, int*);
template __global__ void tile_sums<128>(const int*, int*);

// Wrong: each tile's first thread reads the tile's partial sums from shared
// memory before tile.sync(): a race with the threads that write them.
__global__ void tile_sums_unsynced(const int* in, int* out)
{
    __shared__ cg::block_tile_memory<256> tile_scratch;
    __shared__ int partial[256];
    cg::thread_block block = cg::this_thread_block(tile_scratch);
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    const unsigned r = block.thread_rank();
    partial[r] = in[blockIdx.x * blockDim.x + r];
    if (tile.thread_rank() == 0) {
        int sum = 0;
        for (unsigned k = 0; k < 64; ++k) sum += partial[r + k];
        out[(blockIdx.x * blockDim.x + r) / 64] = sum;
    }
    tile.sync();
}
