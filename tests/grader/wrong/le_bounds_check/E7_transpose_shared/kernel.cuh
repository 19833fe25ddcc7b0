// Known wrong (E7): a padded, coalesced transpose with one `<=` in the load's
// bounds check (col <= cols). Written as a student would after the SGEMM
// tutorials: named row and column, a loop over the block's rows.
//
// Expected verdict, by hand: the lane at col == cols loads in[row * cols +
// cols]. Where cols is a multiple of 32 (the pattern 32x64, 64x96, 200x256) no
// lane has col == cols, and those 3 cases are right. In the other 3 (1x1,
// 33x31, 37x50) the last row's extra load is in[rows * cols], one past the end
// of in: "out-of-bounds load". Elsewhere the extra value goes to a tile column
// that no store reads (its output row, cols, is past the guard), so the
// failing cases fail only by that fault. `correct` fails, "wrong on 3 of 6
// cases (right on the other 3)", each named with its shape. The main case
// (64x96, whole tiles) is among the right ones, so the properties are graded;
// the traced 64x64 is right, and they hold: coalesced stores (3) and a column read of
// 32 words 33 apart, 32 banks (3). Score 6/10.
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const unsigned col = blockIdx.x * TILE + threadIdx.x;
    for (unsigned r = threadIdx.y; r < TILE; r += ROWS) {
        const unsigned row = blockIdx.y * TILE + r;
        if (row < rows && col <= cols) tile[r][threadIdx.x] = in[row * cols + col];  // WRONG: col < cols
    }
    __syncthreads();
    const unsigned out_col = blockIdx.y * TILE + threadIdx.x;  // a row of in
    for (unsigned r = threadIdx.y; r < TILE; r += ROWS) {
        const unsigned out_row = blockIdx.x * TILE + r;  // a column of in
        if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[threadIdx.x][r];
    }
}

}  // namespace exercise
