// Matrix transpose through a shared tile, without the barrier: wrong.
//
// Idea: transpose_padded.cu as a student might first write it, forgetting
//   the __syncthreads() between filling the tile and reading it transposed.
// Changed from transpose_padded.cu: no barrier.
// Expected effect: a thread reads a tile element that a thread of another
//   warp writes in the same barrier interval: the emulator reports a data
//   race (or a read of a not yet written element) at the column read.
// Preconditions: as transpose_padded.cu.
#include "layout.h"

constexpr unsigned kTile = corpus::kTransposeTile;
constexpr unsigned kRows = corpus::kTransposeRows;

__global__ void transpose_no_sync(const float* __restrict__ in, float* out, unsigned width, unsigned height)
{
    __shared__ float tile[kTile][kTile + 1];
    unsigned x = blockIdx.x * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned y = blockIdx.y * kTile + r;
        if (x < width && y < height) tile[r][threadIdx.x] = in[y * width + x];
    }

    unsigned out_x = blockIdx.y * kTile + threadIdx.x;
    for (unsigned r = threadIdx.y; r < kTile; r += kRows) {
        unsigned out_y = blockIdx.x * kTile + r;
        if (out_x < height && out_y < width) out[out_y * height + out_x] = tile[threadIdx.x][r];  // FAULT(column_read)
    }
}
