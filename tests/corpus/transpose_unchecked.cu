// Matrix transpose straight through global memory, without bounds checks:
// wrong unless the sizes are multiples of the tile.
//
// Idea: transpose_naive.cu without `x < width && y < height`, as if every
//   block were full.
// Changed from transpose_naive.cu: no bounds check.
// Expected effect: right when width and height are multiples of the tile;
//   otherwise the blocks on the edges read past the end of the input: an
//   out-of-bounds load.
// Preconditions: blockDim == (kTile, kRows).
#include "layout.h"

constexpr unsigned kTile = corpus::kTransposeTile;
constexpr unsigned kRows = corpus::kTransposeRows;

__global__ void transpose_unchecked(const float* __restrict__ in, float* out, unsigned width, unsigned height)
{
    unsigned x = blockIdx.x * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned y = blockIdx.y * kTile + r;
        out[x * height + y] = in[y * width + x];  // FAULT(unchecked_load)
    }
}
