// Known wrong (E6): right C and only 2K / TILE global loads per output, but
// thread (0, 0) loads both tiles of every phase alone while the others wait.
// The block's loads per output are what tiling gives; the parallel load is not.
//
// Expected verdict: `correct` passes; `loads_per_output` passes its count (at
// 64x64x64, 2048 loads for 256 outputs: 8) but fails on the shape: thread
// (0, 0) makes 2 x 256 x 4 = 2048 global loads and the others none, where
// each thread loads one A and one B element a phase: 8 each. Score 5/10.
#pragma once

namespace exercise {

template <unsigned TILE>
__global__ void matmul_abt(const float* __restrict__ A, const float* __restrict__ B, float* C, unsigned M, unsigned N,
                           unsigned K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * TILE + ty;
    unsigned col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < (K + TILE - 1) / TILE; ++t) {
        if (tx == 0 && ty == 0) {  // WRONG: one thread loads both tiles for everyone
            for (unsigned r = 0; r < TILE; ++r)
                for (unsigned c = 0; c < TILE; ++c) {
                    unsigned a_row = blockIdx.y * TILE + r, b_row = blockIdx.x * TILE + c, k = t * TILE + c;
                    As[r][c] = (a_row < M && k < K) ? A[a_row * K + k] : 0.0f;
                    Bs[r][c] = (b_row < N && t * TILE + r < K) ? B[b_row * K + t * TILE + r] : 0.0f;
                }
        }
        __syncthreads();
        for (unsigned k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

}  // namespace exercise
