// Transpose reference: Harris's copy, with v4's tiles (the ceiling).
//
// Idea: the block shape and tiles of v4 (TILE×TILE tiles, 32×ROWS threads,
//   each thread moving TILE / ROWS elements), but every element goes to the
//   same place in the output: out[y][x] = in[y][x]. Reads and writes are
//   both rows, so both coalesce.
// Why it is here: a transpose moves the same bytes as a copy, and with the
//   same tiles cannot be much faster than one; `warplab bench transpose`
//   times it in the same run as the reference row, and each version's "% of
//   copy" and "vs copy" are the share of the copy's bandwidth it reaches
//   (Harris, "An Efficient Matrix Transpose in CUDA C/C++", measures against
//   the same kernel). It is not the DRAM's ceiling: v5's taller tiles, on
//   matrices beyond L2, write longer runs than this copy does. It is not a
//   step of the ladder: it does not transpose.
// Preconditions: blockDim == (32, ROWS); grid == (ceil(cols / TILE),
//   ceil(rows / TILE)); rows·cols below 2^32.
#pragma once

namespace warplab::transpose {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose_copy(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    static_assert(TILE % 32 == 0 && TILE % ROWS == 0, "whole warps along x; ROWS divides the tile");
#pragma unroll
    for (unsigned j = 0; j < TILE; j += 32) {
        const unsigned x = blockIdx.x * TILE + j + threadIdx.x;
#pragma unroll
        for (unsigned i = 0; i < TILE; i += ROWS) {
            const unsigned y = blockIdx.y * TILE + i + threadIdx.y;
            if (x < cols && y < rows) out[y * cols + x] = in[y * cols + x];
        }
    }
}

}  // namespace warplab::transpose
