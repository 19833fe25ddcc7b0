// Kernels that synchronise the whole grid with cooperative groups, written
// as NVIDIA's cooperative-groups samples write them: this_grid(), a loop of
// phases each ended by grid.sync(), double-buffered arrays.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Phase p: slot b of the next buffer takes slot (b + 1) % blocks of this one, plus one.
// After `phases` phases from x[b] = b: x[b] = (b + phases) % blocks + phases.
__global__ void rotate_phases(int* front, int* back, int phases)
{
    cg::grid_group grid = cg::this_grid();
    const int b = blockIdx.x, blocks = gridDim.x;
    for (int p = 0; p < phases; ++p) {
        int* from = p % 2 == 0 ? front : back;
        int* to = p % 2 == 0 ? back : front;
        if (threadIdx.x == 0) to[b] = from[(b + 1) % blocks] + 1;
        grid.sync();  // MARK(phase sync)
    }
}

// Every block but block 1 waits at the grid barrier: on a GPU, a hang.
__global__ void one_block_skips(int* out)
{
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x != 1) grid.sync();  // MARK(skipped sync)
    if (threadIdx.x == 0) out[blockIdx.x] = 1;
}
