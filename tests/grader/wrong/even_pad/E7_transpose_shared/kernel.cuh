// Known wrong (E7): a right, coalesced transpose whose tile is padded by two
// columns: tile[TILE][TILE + kPad] with kPad = 2.
//
// Expected verdict, by hand: `correct` and `coalesced_stores` pass. Element
// [r][c] of the tile is word 34r + c, in bank (34r + c) mod 32 = (2r + c) mod 32.
// The stores write a row (c = tx): 32 consecutive words, 1 wavefront each, 8
// warps x 4 rows = 32 wavefronts. The reads gather a column (r = tx): lanes
// tx and tx + 16 share bank (2tx + c) mod 32, 2-way, 2 wavefronts each: 64.
// So "step 1: a shared load by 32 lanes of warp 0 is 2-way bank-conflicted (2
// wavefronts, ideal 1); block 0 in all: 96 shared wavefronts for an ideal of
// 64", and the hint says why an even pad conflicts: "(r*34 + c) mod 32 = (2r +
// c) mod 32", "rows r and r + 16 share a bank: 2 rows a bank, 2-way". Score 7/10.
#pragma once

namespace exercise {

constexpr unsigned kPad = 2;  // WRONG: an even pad; TILE + 1 spreads a column over 32 banks

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + kPad];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned in_x = blockIdx.x * TILE + tx, in_y = blockIdx.y * TILE + ty;
#pragma unroll
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (in_x < cols && in_y + j < rows) tile[ty + j][tx] = in[(in_y + j) * cols + in_x];
    __syncthreads();
    const unsigned out_x = blockIdx.y * TILE + tx, out_y = blockIdx.x * TILE + ty;
#pragma unroll
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (out_x < rows && out_y + j < cols) out[(out_y + j) * rows + out_x] = tile[tx][ty + j];
}

}  // namespace exercise
