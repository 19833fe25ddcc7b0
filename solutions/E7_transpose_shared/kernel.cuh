// E7 solution: transpose through a padded shared tile.
//
// Reads: a warp reads 32 consecutive floats of a row of `in` (coalesced).
// Writes: a warp writes 32 consecutive floats of a row of `out` (coalesced),
// taking them from a column of the tile. With TILE + 1 columns, element
// [r][c] is word r * 33 + c: a column's 32 words fall in 32 distinct banks.
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    static_assert(TILE % ROWS == 0, "each thread moves TILE / ROWS elements");
    __shared__ float tile[TILE][TILE + 1];

    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < rows && x < cols) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;  // column of out = row of in
    y = blockIdx.x * TILE + threadIdx.y;  // row of out = column of in
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < cols && x < rows) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

}  // namespace exercise
