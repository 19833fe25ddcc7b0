// Right but different (E7): the tile padded by 3 columns, not 1, and the
// block's rows walked with blockDim.y (as NVIDIA's transpose sample does).
//
// Expected verdict: full marks. Element [r][c] is word 35r + c, in bank
// (35r + c) mod 32 = (3r + c) mod 32; 3 and 32 share no factor, so 3r takes 32
// distinct values mod 32 for r = 0 .. 31: a column read is 1-way. Any odd pad
// works; the grader must not ask for exactly TILE + 1.
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 3];
    const unsigned bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
    for (unsigned r = threadIdx.y; r < TILE; r += blockDim.y)
        if (by + r < rows && bx + threadIdx.x < cols) tile[r][threadIdx.x] = in[(by + r) * cols + bx + threadIdx.x];
    __syncthreads();
    for (unsigned r = threadIdx.y; r < TILE; r += blockDim.y)
        if (bx + r < cols && by + threadIdx.x < rows) out[(bx + r) * rows + by + threadIdx.x] = tile[threadIdx.x][r];
}

}  // namespace exercise
