// Known wrong (E7): a right transpose whose global loads do the transposing.
// Lane tx reads in[r0 + tx][c0 + ty + j], walking down a column of `in`, and
// stores it as row ty + j of a padded tile; out's row ty + j is then written
// from that same tile row. The strided access has moved from the stores to
// the loads, and the tile, written and read by rows, transposes nothing.
//
// Expected verdict: `correct` passes. `coalesced_stores` fails on the loads:
// the lanes of a load are cols = 64 floats = 256 bytes apart, 32 sectors
// where 4 would do. `no_bank_conflicts` fails though no access conflicts: a
// warp's store into the tile holds 32 rows and one column of in, so the
// padding is never put to work. Score 4/10; the same without the pad
// (grade_wrong_E7_strided_loads_unpadded, made from this file in
// tests/grader/CMakeLists.txt): no column read to conflict in, 4/10.
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    for (unsigned j = 0; j < TILE; j += ROWS) {
        const unsigned r = r0 + tx, c = c0 + ty + j;  // WRONG: lane tx walks down a column of in
        if (r < rows && c < cols) tile[ty + j][tx] = in[r * cols + c];
    }
    __syncthreads();
    for (unsigned j = 0; j < TILE; j += ROWS) {
        const unsigned orow = c0 + ty + j, ocol = r0 + tx;
        if (orow < cols && ocol < rows) out[orow * rows + ocol] = tile[ty + j][tx];
    }
}

}  // namespace exercise
