// Matrix transpose straight through global memory.
//
// Idea: thread (x, y) copies in[y][x] to out[x][y].
// Changed: nothing; the baseline of the transpose ladder.
// Expected effect: a warp reads a row segment (coalesced) but writes a
//   column segment: each lane's store lands in its own sector.
// Preconditions: blockDim == (kTile, kRows); each thread copies kTile / kRows
//   rows of its block's kTile x kTile tile; any width and height.
#include "layout.h"

constexpr unsigned kTile = corpus::kTransposeTile;
constexpr unsigned kRows = corpus::kTransposeRows;

__global__ void transpose_naive(const float* __restrict__ in, float* out, unsigned width, unsigned height)
{
    unsigned x = blockIdx.x * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned y = blockIdx.y * kTile + r;
        if (x < width && y < height) out[x * height + y] = in[y * width + x];
    }
}
