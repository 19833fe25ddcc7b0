// Transpose v3: the shared tile padded by one column.
//
// Idea: give each row of the tile one unused float at its end. Word (r, c) of
//   the tile is then at r·(TILE + 1) + c, in bank (r + c) mod 32: the 32
//   words of a column fall into 32 different banks.
// Changed from v2: `tile[TILE][TILE + 1]`.
// Expected effect: the column read of the tile is conflict-free: 1 wavefront
//   per request instead of 32. The row write stays conflict-free (bank
//   (r + c) mod 32 still differs from lane to lane), and global memory is as
//   in v2. The cost: TILE floats of shared memory per block.
// Preconditions: as v1.
#pragma once

namespace warplab::transpose {

template <unsigned TILE>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    static_assert(TILE % 32 == 0 && TILE * TILE <= 1024, "TILE×TILE threads in whole warps, at most 1024");
    __shared__ float tile[TILE][TILE + 1];

    const unsigned x = blockIdx.x * TILE + threadIdx.x;
    const unsigned y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();

    const unsigned out_x = blockIdx.y * TILE + threadIdx.x;
    const unsigned out_y = blockIdx.x * TILE + threadIdx.y;
    if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[threadIdx.x][threadIdx.y];
}

}  // namespace warplab::transpose
