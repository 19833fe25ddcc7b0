// Right but different (E7): no padding, a swizzle: element [r][c] of the tile
// is stored at column c ^ r, so that a column's 32 elements fall in 32
// distinct banks of an unpadded tile[32][32] (XOR with r permutes 0..31).
//
// Expected verdict: full marks. Stores: lane tx of a row r writes word
// 32 r + (tx ^ r), banks tx ^ r, all distinct. Loads: lane tx reads row tx,
// column (ty + j) ^ tx: banks (ty + j) ^ tx, all distinct. The warp reads a
// column of `in` from the tile and writes it as a row of `out` (coalesced).
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    static_assert(TILE == 32, "the swizzle permutes 32 columns");
    __shared__ float tile[TILE][TILE];

    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS) {
        unsigned r = threadIdx.y + j;
        if (y + j < rows && x < cols) tile[r][threadIdx.x ^ r] = in[(y + j) * cols + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS) {
        unsigned c = threadIdx.y + j;
        if (y + j < cols && x < rows) out[(y + j) * rows + x] = tile[threadIdx.x][c ^ threadIdx.x];
    }
}

}  // namespace exercise
