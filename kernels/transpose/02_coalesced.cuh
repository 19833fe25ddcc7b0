// Transpose v2: coalesced through a shared-memory tile.
//
// Idea: the block copies a TILE×TILE tile of `in` into shared memory, row by
//   row, waits, and writes the tile's COLUMNS out as rows of `out`. The
//   transpose happens in shared memory, where a column costs no extra sectors.
// Changed from v1: the write takes its value from tile[threadIdx.x][threadIdx.y]
//   and its place from the block's tile swapped (blockIdx.y along x), so that
//   lane to lane it is the next float of a row of `out`.
// Expected effect: both global accesses are rows: 4 sectors per request for
//   the load and the store (at a width that is a multiple of 32). The price is
//   in shared memory: the tile's rows are 32 floats long, so a column
//   tile[0..31][c] lies in ONE bank, and the read of it is a 32-way bank
//   conflict (32 wavefronts instead of 1). The row write of the tile is
//   conflict-free. The trace has two steps: load the tile, write it out.
// Preconditions: as v1.
#pragma once

namespace warplab::transpose {

template <unsigned TILE>
__global__ void transpose_coalesced(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    static_assert(TILE % 32 == 0 && TILE * TILE <= 1024, "TILE×TILE threads in whole warps, at most 1024");
    __shared__ float tile[TILE][TILE];

    const unsigned x = blockIdx.x * TILE + threadIdx.x;
    const unsigned y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();

    const unsigned out_x = blockIdx.y * TILE + threadIdx.x;  // a row of `in` becomes a column of `out`
    const unsigned out_y = blockIdx.x * TILE + threadIdx.y;
    if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[threadIdx.x][threadIdx.y];
}

}  // namespace warplab::transpose
