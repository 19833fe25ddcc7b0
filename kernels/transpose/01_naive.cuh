// Transpose v1: naive, one thread per element.
//
// Idea: out (cols×rows) = the transpose of in (rows×cols), both row-major
//   floats. Thread (x, y) of the 2D grid reads in[y][x] and writes it to
//   out[x][y].
// Changed: the starting point (Harris's transposeNaive, with a bounds check
//   so that any shape works).
// Expected effect: correct, and half of it slow. threadIdx.x, which changes
//   from lane to lane, picks the column x: the 32 lanes of a warp read 32
//   consecutive floats of a row of `in` (4 sectors per request, the ideal),
//   but write 32 floats of a COLUMN of `out`, `rows` floats apart: 32 sectors
//   per request, each of which carries 4 useful bytes of its 32.
// Preconditions: blockDim == (TILE, TILE); grid == (ceil(cols / TILE),
//   ceil(rows / TILE)); rows·cols below 2^32 (32-bit indices).
#pragma once

namespace warplab::transpose {

template <unsigned TILE>
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    static_assert(TILE % 32 == 0 && TILE * TILE <= 1024, "TILE×TILE threads in whole warps, at most 1024");
    const unsigned x = blockIdx.x * TILE + threadIdx.x;  // lane to lane: the next column of `in`
    const unsigned y = blockIdx.y * TILE + threadIdx.y;

    if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

}  // namespace warplab::transpose
