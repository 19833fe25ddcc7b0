// Known wrong (E7): a right transpose through a padded tile that transposes
// nothing: the tile is written and read by rows, tile[ty + j][tx] both
// times, and the stores keep the block indices unswapped, so they go out by
// columns of `out`.
//
// Expected verdict: `correct` passes. `coalesced_stores` fails: lane tx
// writes out[x][y + j], rows = 64 floats = 256 bytes apart, 32 sectors where
// 4 would do. `no_bank_conflicts` fails too, though no access conflicts: a
// warp's read of the tile gathers row ty + j of in, 32 columns of one row,
// so the padding is never put to work. Score 4/10.
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 1];
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < rows && x < cols) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < rows && x < cols) out[x * rows + y + j] = tile[threadIdx.y + j][threadIdx.x];  // WRONG: by rows
}

}  // namespace exercise
