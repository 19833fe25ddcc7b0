// Transpose v5: wide tiles, more bytes in flight (tuned for Hopper).
//
// Idea: a memory-bound kernel runs at the bandwidth Little's law allows:
//   bytes in flight = bandwidth × latency. An H100 moves over 3 TB/s with a
//   DRAM latency of several hundred nanoseconds: each of its 132 SMs needs
//   on the order of ten kilobytes of loads outstanding. v4's block has 4 KB
//   in flight before its barrier, and about half of the resident blocks are
//   writing, not loading, at any moment. So each block takes a 64×64 tile
//   with the same 32×8 threads: 16 independent loads per thread, 16 KB per
//   block, all issued before the barrier.
// Changed from v4: the tile is TILE = 64 wide, twice the warp; each lane
//   handles the columns threadIdx.x and threadIdx.x + 32 of it; the loads
//   go to registers first and then into the tile, so none waits for another.
// Expected effect: the same pattern per warp instruction as v4 (4 sectors per
//   request; no bank conflict: a row of the padded tile is 65 floats,
//   65 mod 32 = 1, so word (r, c) is in bank (r + c) mod 32 and 32 lanes
//   along a row or down a column cover 32 banks); four times the bytes in
//   flight per block, a quarter of the blocks. Not taken: 16-byte vector loads
//   (they need cols % 4 == 0 and a second path for every other shape) and a
//   swizzled index instead of padding (the same banks, one float less a row).
// Preconditions: blockDim == (32, ROWS); grid == (ceil(cols / TILE),
//   ceil(rows / TILE)); rows·cols below 2^32.
#pragma once

namespace warplab::transpose {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose_wide_tiles(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    static_assert(TILE % 32 == 0 && TILE % ROWS == 0 && 32 * ROWS <= 1024, "whole warps; ROWS divides the tile");
    __shared__ float tile[TILE][TILE + 1];

    // All the thread's loads first, into registers, so that all 16 are in
    // flight at once; then into the tile. Outside the matrix: 0, never stored.
    float v[TILE / 32][TILE / ROWS];
#pragma unroll
    for (unsigned j = 0; j < TILE / 32; ++j) {
        const unsigned x = blockIdx.x * TILE + 32 * j + threadIdx.x;
#pragma unroll
        for (unsigned i = 0; i < TILE / ROWS; ++i) {
            const unsigned y = blockIdx.y * TILE + ROWS * i + threadIdx.y;
            v[j][i] = (x < cols && y < rows) ? in[y * cols + x] : 0.0f;
        }
    }
#pragma unroll
    for (unsigned j = 0; j < TILE / 32; ++j)
#pragma unroll
        for (unsigned i = 0; i < TILE / ROWS; ++i) tile[ROWS * i + threadIdx.y][32 * j + threadIdx.x] = v[j][i];
    __syncthreads();

#pragma unroll
    for (unsigned j = 0; j < TILE / 32; ++j) {
        const unsigned out_x = blockIdx.y * TILE + 32 * j + threadIdx.x;
#pragma unroll
        for (unsigned i = 0; i < TILE / ROWS; ++i) {
            const unsigned out_y = blockIdx.x * TILE + ROWS * i + threadIdx.y;
            if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[32 * j + threadIdx.x][ROWS * i + threadIdx.y];
        }
    }
}

}  // namespace warplab::transpose
