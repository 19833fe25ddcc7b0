// Matmul v2: global-memory coalescing.
//
// Idea: the same work as v1, but let threadIdx.x pick the COLUMN of C. The 32
//   lanes of a warp then compute 32 neighbouring elements of one row of C.
// Changed from v1: row and col swap their thread index (and the grid its
//   axes). Nothing else.
// Expected effect: each load of B reads 32 consecutive floats, 128 bytes = 4
//   sectors per request (the ideal); all lanes read the same A[row][k], one
//   sector, broadcast; the store of C is 4 sectors. The "coalesced" step of
//   Young, "DirectCompute Optimizations and Best Practices": several times
//   faster than v1.
// Preconditions: blockDim == (BX, BY); grid == (ceil(N / BX), ceil(M / BY));
//   M·K, K·N and M·N below 2^32.
#pragma once
#include <cmath>

namespace warplab::matmul {

template <unsigned BX, unsigned BY>
__global__ void matmul_coalesced(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                 unsigned M, unsigned N, unsigned K)
{
    static_assert(BX % 32 == 0 && BX * BY <= 1024, "whole warps along x, at most 1024 threads");
    const unsigned row = blockIdx.y * BY + threadIdx.y;  // the same for the whole warp
    const unsigned col = blockIdx.x * BX + threadIdx.x;  // lane to lane: the next column

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
