// Matrix transpose through a shared-memory tile, unpadded.
//
// Idea: a block reads a tile row by row (coalesced), stores it in shared
//   memory, and after a barrier writes the transposed tile row by row
//   (coalesced), reading the shared tile column by column.
// Changed from transpose_naive.cu: global stores are coalesced too.
// Expected effect: the column reads of the tile hit one bank with every
//   lane of a warp (a tile row is exactly as wide as the banks).
// Preconditions: blockDim == (kTile, kRows); any width and height.
#include "layout.h"

constexpr unsigned kTile = corpus::kTransposeTile;
constexpr unsigned kRows = corpus::kTransposeRows;

__global__ void transpose_shared(const float* __restrict__ in, float* out, unsigned width, unsigned height)
{
    __shared__ float tile[kTile][kTile];
    unsigned x = blockIdx.x * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned y = blockIdx.y * kTile + r;
        if (x < width && y < height) tile[r][threadIdx.x] = in[y * width + x];
    }
    __syncthreads();

    unsigned out_x = blockIdx.y * kTile + threadIdx.x;  // a column of the input
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned out_y = blockIdx.x * kTile + r;  // a row of the output
        if (out_x < height && out_y < width) out[out_y * height + out_x] = tile[threadIdx.x][r];  // COLUMN_READ
    }
}
