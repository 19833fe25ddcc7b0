// Matrix transpose through a shared-memory tile padded by one column.
//
// Idea: the tile of transpose_shared.cu with one unused column, so that the
//   elements of a tile column fall into different banks.
// Changed from transpose_shared.cu: `tile[kTile][kTile + 1]`.
// Expected effect: the column reads are conflict-free; everything else is
//   unchanged.
// Preconditions: blockDim == (kTile, kRows); any width and height.
#include "layout.h"

constexpr unsigned kTile = corpus::kTransposeTile;
constexpr unsigned kRows = corpus::kTransposeRows;

__global__ void transpose_padded(const float* __restrict__ in, float* out, unsigned width, unsigned height)
{
    __shared__ float tile[kTile][kTile + 1];
    unsigned x = blockIdx.x * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned y = blockIdx.y * kTile + r;
        if (x < width && y < height) tile[r][threadIdx.x] = in[y * width + x];
    }
    __syncthreads();

    unsigned out_x = blockIdx.y * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned out_y = blockIdx.x * kTile + r;
        if (out_x < height && out_y < width) out[out_y * height + out_x] = tile[threadIdx.x][r];  // COLUMN_READ
    }
}
