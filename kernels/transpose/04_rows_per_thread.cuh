// Transpose v4: several elements per thread.
//
// Idea: a TILE×ROWS block moves a TILE×TILE tile: each thread loads
//   TILE / ROWS elements of the tile, ROWS rows apart, and later stores
//   TILE / ROWS (Harris's 32×8 threads for a 32×32 tile: 4 each).
// Changed from v3: blockDim.y is ROWS instead of TILE; the load and the store
//   each became a loop over the thread's rows of the tile.
// Expected effect: a quarter of the threads for the same data, so the index
//   arithmetic and the block's start-up and barrier are paid once per four
//   elements, and each thread has four independent loads in flight before the
//   barrier. Every access keeps v3's pattern: 4 sectors per request, no bank
//   conflict.
// Preconditions: blockDim == (TILE, ROWS); grid == (ceil(cols / TILE),
//   ceil(rows / TILE)); rows·cols below 2^32.
#pragma once

namespace warplab::transpose {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose_rows_per_thread(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    static_assert(TILE % 32 == 0 && TILE % ROWS == 0 && TILE * ROWS <= 1024, "whole warps; ROWS divides the tile");
    __shared__ float tile[TILE][TILE + 1];

    const unsigned x = blockIdx.x * TILE + threadIdx.x;
    for (unsigned i = 0; i < TILE; i += ROWS) {
        const unsigned y = blockIdx.y * TILE + i + threadIdx.y;
        if (x < cols && y < rows) tile[i + threadIdx.y][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();

    const unsigned out_x = blockIdx.y * TILE + threadIdx.x;
    for (unsigned i = 0; i < TILE; i += ROWS) {
        const unsigned out_y = blockIdx.x * TILE + i + threadIdx.y;
        if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[threadIdx.x][i + threadIdx.y];
    }
}

}  // namespace warplab::transpose
