// Five-point Laplacian of a 2D grid, with a halo tile in shared memory.
//
// Idea: each block loads its tile of the grid plus a one-cell border (the
//   halo) into shared memory once; every thread then reads its four
//   neighbours from shared memory instead of global memory.
// Changed from a global-only stencil: each input cell is loaded from global
//   memory about once per block instead of five times.
// Expected effect: out = 4 c - (north + south + west + east), with cells
//   outside the grid read as zero. Corners of the halo are never read.
// Preconditions: blockDim == (kTile, kTile); any width and height (blocks
//   on the right and bottom edges are partly outside the grid).
#include "layout.h"

constexpr int kTile = corpus::kStencilTile;

__device__ float cell_or_zero(const float* in, int x, int y, int width, int height)
{
    return x >= 0 && x < width && y >= 0 && y < height ? in[y * width + x] : 0.0f;
}

__global__ void stencil_5pt(const float* __restrict__ in, float* out, int width, int height)
{
    __shared__ float tile[kTile + 2][kTile + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * kTile + tx, y = blockIdx.y * kTile + ty;

    tile[ty + 1][tx + 1] = cell_or_zero(in, x, y, width, height);
    if (tx == 0) tile[ty + 1][0] = cell_or_zero(in, x - 1, y, width, height);
    if (tx == kTile - 1) tile[ty + 1][kTile + 1] = cell_or_zero(in, x + 1, y, width, height);
    if (ty == 0) tile[0][tx + 1] = cell_or_zero(in, x, y - 1, width, height);
    if (ty == kTile - 1) tile[kTile + 1][tx + 1] = cell_or_zero(in, x, y + 1, width, height);
    __syncthreads();

    if (x < width && y < height) {
        float neighbours = tile[ty][tx + 1] + tile[ty + 2][tx + 1] + tile[ty + 1][tx] + tile[ty + 1][tx + 2];
        out[y * width + x] = 4.0f * tile[ty + 1][tx + 1] - neighbours;
    }
}
