// E6: tiled matrix multiply C = A B^T (mirrors matmul v2 -> v3, shared-memory tiles).
//
// C[i][j] = sum over k of A[i][k] * B[j][k]: every row of A against every row
// of B, as attention scores Q K^T are. A is M x K, B is N x K, C is M x N,
// all row-major floats. The grader launches blocks of TILE x TILE threads
// over a ceil(N/TILE) x ceil(M/TILE) grid; thread (tx, ty) of block (bx, by)
// computes C[by*TILE + ty][bx*TILE + tx].
//
// The naive kernel reads a whole row of A and a whole row of B from global
// memory for each output: 2K loads. Here the block walks along K one tile at a
// time: each thread loads ONE element of the A tile and ONE of the B^T tile
// into shared memory, and all TILE x TILE threads then read the tiles from
// there. The loop and the inner product are done; the tile loads are yours.
//
// Grade it:  build/warplab grade E6        (README.md says what is checked)
#pragma once

namespace exercise {

template <unsigned TILE>
__global__ void matmul_abt(const float* __restrict__ A, const float* __restrict__ B, float* C, unsigned M, unsigned N, unsigned K)
{
    __shared__ float As[TILE][TILE];  // As[r][k] = A[by*TILE + r][t*TILE + k]
    __shared__ float Bs[TILE][TILE];  // Bs[k][c] = B[bx*TILE + c][t*TILE + k]: a tile of B^T

    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * TILE + ty;  // of A and C
    unsigned col = blockIdx.x * TILE + tx;  // of C, and the row of B
    float acc = 0.0f;

    for (unsigned t = 0; t < (K + TILE - 1) / TILE; ++t) {
        // TODO: load tile t of A and of B^T, one element each per thread:
        //   As[ty][tx] = A[row][t*TILE + tx]     (0 where that is outside A)
        //   Bs[ty][tx] = B[col][t*TILE + ty]     (0 where that is outside B)
        // (A[r][k] is A[r * K + k]; B[r][k] is B[r * K + k].)
        __syncthreads();  // the tiles are complete before anyone reads them

        for (unsigned k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();  // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) C[row * N + col] = acc;
}

}  // namespace exercise
