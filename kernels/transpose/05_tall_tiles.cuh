// Transpose v5: taller tiles where the matrix does not fit in L2.
//
// Idea: v4's block reads a 32×32 tile and writes 32 rows of out, 128 bytes
//   of each. Where in and out together fit in L2, those writes stay in the
//   cache during the kernel and v4's many small blocks are what is fastest.
//   Where they do not, every written line goes on to DRAM, and DRAM serves
//   long runs of consecutive addresses best. A tile twice as tall (64 rows
//   of in, 32 columns) makes each row of out that a block writes 256 bytes
//   long, two lines in a row, and gives each thread 8 independent loads in
//   flight instead of 4.
// Changed from v4: the tile is TILE_ROWS × 32 instead of 32 × 32, with v4's
//   32×8 threads; the store loop writes each of the block's 32 rows of out
//   in TILE_ROWS / 32 pieces of 32 floats. The host picks TILE_ROWS by size
//   (V5::tile_rows, labs/transpose/versions.h): 32 where in and out fit in
//   the GPU's L2, so there v5 runs v4's tiles; 64 beyond.
// Expected effect: the same sectors per request and the same conflict-free
//   banks as v4 (tile rows are 33 floats: word (r, c) is in bank (r + c) mod
//   32); faster than v4 and the copy with v4's tiles on matrices larger than
//   L2, v4's time on smaller ones.
// Preconditions: blockDim == (32, ROWS), THREADS = 32·ROWS; grid == (ceil(cols / 32),
//   ceil(rows / TILE_ROWS)); rows·cols below 2^32.
#pragma once

namespace warplab::transpose {

// THREADS = 32·ROWS: the block's size, which names the instance in ptxas's report.
template <unsigned TILE_ROWS, unsigned THREADS>
__global__ void transpose_tall_tiles(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    constexpr unsigned ROWS = THREADS / 32;
    static_assert(THREADS % 32 == 0 && TILE_ROWS % 32 == 0 && TILE_ROWS % ROWS == 0 && 32 % ROWS == 0,
                  "whole warps; ROWS divides the tile");
    __shared__ float tile[TILE_ROWS][32 + 1];

    const unsigned x = blockIdx.x * 32 + threadIdx.x;
#pragma unroll
    for (unsigned i = 0; i < TILE_ROWS; i += ROWS) {
        const unsigned y = blockIdx.y * TILE_ROWS + i + threadIdx.y;
        if (x < cols && y < rows) tile[i + threadIdx.y][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();

    // Row out_y of out is column out_y of in: TILE_ROWS floats of it per block.
#pragma unroll
    for (unsigned i = 0; i < 32; i += ROWS) {
        const unsigned out_y = blockIdx.x * 32 + i + threadIdx.y;
#pragma unroll
        for (unsigned j = 0; j < TILE_ROWS; j += 32) {
            const unsigned out_x = blockIdx.y * TILE_ROWS + j + threadIdx.x;
            if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[j + threadIdx.x][i + threadIdx.y];
        }
    }
}

}  // namespace warplab::transpose
