// Known wrong (E7): a padded, coalesced transpose written for square
// matrices, as a textbook's n x n example is: one size n (= rows) for both
// dimensions of in and of out. Not an edge bug: every non-square input is
// wrong, whole tiles or not.
//
// Expected verdict, by hand: on the pattern (32x64, in[r][c] = 100r + c) n =
// 32, so block (0,0) loads in[r * 32 + c] into tile[r][c] and writes
// out[y * 32 + x] = tile[x][y] = in[x * 32 + y]: out[0][0] = in[0] = 0 is right,
// out[0][1] = in[32] = 100 * 0 + 32 = 32 where in[1][0] = 100 is due (block
// (1,0) stores nothing: its x and y are >= n). 64x96 (the main case), 37x50
// and 200x256 are wrong the same way; 33x31 reads in[32 * 33 + 32] = in[1088],
// past its 1023 elements (a fault); only 1x1 (n = 1 either way) is right:
// "wrong on 5 of 6 cases (right on the other 1)". The traced run is square
// (64x64): right, coalesced and conflict-free. A property is credited only
// once the main case is right, so neither is: 0 + 0 + 0 = 0/10 (credited on
// some right case alone, as before, it would have kept 3 + 3 = 6/10).
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const unsigned n = rows;  // WRONG: the matrix is rows x cols, not n x n
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

}  // namespace exercise
