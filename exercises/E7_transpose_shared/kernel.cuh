// E7: matrix transpose through shared memory (coalescing and bank conflicts,
// the lessons of reduction v1's load and of v2 -> v3, on a 2D tile).
//
// out (cols x rows) = the transpose of in (rows x cols), both row-major. The
// grader launches blocks of TILE x ROWS threads over a ceil(cols/TILE) x
// ceil(rows/TILE) grid; block (bx, by) moves the TILE x TILE tile whose top
// left corner is in[by*TILE][bx*TILE], each thread TILE/ROWS elements.
//
// Writing out[c][r] = in[r][c] directly makes a warp's stores 32 rows apart
// (32 sectors per request). Instead the tile is read in row order into shared
// memory (done below), and written out in row order of `out`. Then make the
// column reads of the tile conflict-free.
//
// Grade it:  build/warplab grade E7        (README.md says what is checked)
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    static_assert(TILE % ROWS == 0, "each thread moves TILE / ROWS elements");
    __shared__ float tile[TILE][TILE];  // TODO (2): a column of this tile lies in one bank

    unsigned x = blockIdx.x * TILE + threadIdx.x;  // column of in
    unsigned y = blockIdx.y * TILE + threadIdx.y;  // row of in
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < rows && x < cols) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();

    // TODO (1): write the tile out, transposed. Swap the block indices
    // (block (bx, by) writes the tile of `out` at [bx*TILE][by*TILE]) and keep
    // threadIdx.x along the rows of `out`, so that a warp's stores are
    // consecutive: out[(bx*TILE + ty + j) * rows + by*TILE + tx] comes from
    // tile[tx][ty + j]. Check both bounds.
}

}  // namespace exercise
