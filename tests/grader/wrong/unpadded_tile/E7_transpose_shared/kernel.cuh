// Known wrong (E7): right transpose, coalesced both ways, but the tile is not
// padded: tile[TILE][TILE].
//
// Expected verdict: `correct` and `coalesced_stores` pass; `no_bank_conflicts`
// fails at step 1 (after the __syncthreads()): lane tx of warp 0 (ty = 0)
// reads tile[tx][0], word 32 * tx, all in bank 0: "a shared load by 32 lanes
// of warp 0 is 32-way bank-conflicted (32 wavefronts, ideal 1)".
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE];  // WRONG: TILE + 1 columns
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < rows && x < cols) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < cols && x < rows) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

}  // namespace exercise
