// Matmul v1: naive, one thread per element of C, with the uncoalesced mapping.
//
// Idea: C = A·B with A M×K, B K×N, C M×N, all row-major floats. Thread
//   (x, y) of the 2D grid computes C[row][col] as one dot product of row `row`
//   of A and column `col` of B, reading both from global memory.
// Changed: the starting point (the MatrixMulKernel of Kirk and Hwu,
//   "Programming Massively Parallel Processors", generalised to any M, N, K
//   and many blocks).
// Expected effect: correct and slow. threadIdx.x, the index that changes from
//   lane to lane in a warp, picks the ROW: the 32 lanes of a warp read
//   A[row][k] for 32 rows, K floats apart, so each load of A touches 32
//   sectors per request (ideal 4), and the store of C likewise. All lanes read
//   the same B[k][col] (1 sector, a broadcast). The trace shows 32 sectors per
//   request on the A line.
// Every version accumulates with fmaf(a, b, acc): one fused multiply-add (the
//   FFMA instruction the FP32 peak counts), which nvcc would make of
//   acc += a * b anyway. Written out, it rounds the same way on the emulator,
//   so the GPU's trace and the emulator's agree to the last bit.
// Preconditions: blockDim == (BX, BY); grid == (ceil(M / BX), ceil(N / BY));
//   M·K, K·N and M·N below 2^32 (32-bit indices).
#pragma once
#include <cmath>

namespace warplab::matmul {

template <unsigned BX, unsigned BY>
__global__ void matmul_naive(const float* __restrict__ A, const float* __restrict__ B, float* C,
                             unsigned M, unsigned N, unsigned K)
{
    static_assert(BX % 32 == 0 && BX * BY <= 1024, "whole warps along x, at most 1024 threads");
    const unsigned row = blockIdx.x * BX + threadIdx.x;  // lane to lane: the next row
    const unsigned col = blockIdx.y * BY + threadIdx.y;  // the same for the whole warp

    if (row < M && col < N) {
        float acc = 0.0f;
        for (unsigned k = 0; k < K; ++k) {
            const float a = A[row * K + k];
            const float b = B[k * N + col];
            acc = fmaf(a, b, acc);
        }
        C[row * N + col] = acc;
    }
}

}  // namespace warplab::matmul
