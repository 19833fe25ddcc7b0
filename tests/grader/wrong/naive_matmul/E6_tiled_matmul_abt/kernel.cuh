// Known wrong (E6): a right product, but the naive kernel: every thread reads
// its row of A and its row of B from global memory.
//
// Expected verdict: `correct` passes; `loads_per_output` fails: at
// 64 x 64 x 64, block 0's 256 threads each load 2K = 128 elements: "block 0
// made 32768 global loads for its 256 outputs: 128 per output", expected "at
// most 2K / TILE = 8 per output".
#pragma once

namespace exercise {

template <unsigned TILE>
__global__ void matmul_abt(const float* __restrict__ A, const float* __restrict__ B, float* C, unsigned M, unsigned N, unsigned K)
{
    unsigned row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (unsigned k = 0; k < K; ++k) acc += A[row * K + k] * B[col * K + k];  // WRONG: no reuse
    C[row * N + col] = acc;
}

}  // namespace exercise
