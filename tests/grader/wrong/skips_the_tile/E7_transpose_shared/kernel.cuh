// Known wrong (E7): a right transpose with coalesced stores, but without the
// shared tile: each warp reads a column of `in` (32 rows apart) and writes a
// row of `out`. The stores are coalesced, but nothing went through shared
// memory: the lesson is the tile that makes both sides coalesced.
//
// Expected verdict: `correct` passes (4 points); `coalesced_stores` fails on
// the shape ("block 0: 1024 global loads, 0 shared stores to 0 words, 0
// shared loads, 1024 global stores"); `no_bank_conflicts` fails: block 0 made
// no shared-memory access. Score 4/10.
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    // Thread (tx, ty) of block (bx, by) writes out[bx*TILE + ty + j][by*TILE + tx] = in[by*TILE + tx][bx*TILE + ty + j].
    unsigned r = blockIdx.y * TILE + threadIdx.x;  // row of in, column of out
    for (unsigned j = 0; j < TILE; j += ROWS) {
        unsigned c = blockIdx.x * TILE + threadIdx.y + j;  // column of in, row of out
        if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];  // WRONG: no tile, loads 32 rows apart
    }
}

}  // namespace exercise
