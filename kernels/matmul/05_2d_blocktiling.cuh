// Matmul v5: 2D register blocking: each thread computes a TM×TN block of C.
//
// Idea: v4 reused one B value for TM products. Load TM values of A's column
//   and TN values of B's row into registers and multiply every pair: TM + TN
//   shared loads feed TM·TN products (an outer product per step k).
// Changed from v4: each thread keeps a TM×TN block of sums (acc[TM][TN]); the
//   block tile grows to BM×BN = 128×128 with (BN/TN) × (BM/TM) = 16×16
//   threads; each thread loads BM·BK/256 = 4 elements of each tile.
// Expected effect: shared loads per product fall from 1.125 to
//   (TM + TN)/(TM·TN) = 0.25; each loaded A and B element feeds 8 products
//   from registers, and the block reads (BM + BN)·K floats of A and B for
//   BM·BN results, half v4's traffic per result. The price shows in the
//   trace: a warp is 16 threads across × 2 down, so its scalar reads of a
//   column of As (8 words apart per row) hit the same bank for the two rows
//   (2-way), and Bs[k][tx*TN + j] puts lanes tx and tx + 4 in one bank
//   (4-way). v6 fixes the access widths, v7 the banks.
// Preconditions: blockDim == (BN / TN, BM / TM); grid == (ceil(N / BN),
//   ceil(M / BM)); M·K, K·N and M·N below 2^32.
#pragma once
#include <cmath>

namespace warplab::matmul {

template <unsigned BM, unsigned BN, unsigned BK, unsigned TM, unsigned TN>
__global__ void matmul_2d_blocktiling(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                      unsigned M, unsigned N, unsigned K)
{
    constexpr unsigned THREADS = (BM / TM) * (BN / TN);
    static_assert(BM % TM == 0 && BN % TN == 0 && THREADS % 32 == 0 && THREADS <= 1024,
                  "(BN/TN) × (BM/TM) threads in whole warps, at most 1024");
    static_assert((BM * BK) % THREADS == 0 && (BK * BN) % THREADS == 0, "every thread loads the same number of elements");
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned t = ty * (BN / TN) + tx;
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (unsigned k0 = 0; k0 < K; k0 += BK) {
        // Load tile k.
        for (unsigned l = 0; l < BM * BK / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / BK, c = (t + l * THREADS) % BK;
            As[r][c] = (bm + r < M && k0 + c < K) ? A[(bm + r) * K + k0 + c] : 0.0f;
        }
        for (unsigned l = 0; l < BK * BN / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / BN, c = (t + l * THREADS) % BN;
            Bs[r][c] = (k0 + r < K && bn + c < N) ? B[(k0 + r) * N + bn + c] : 0.0f;
        }
        __syncthreads();

        // Compute on tile k: an outer product of TM values of A and TN of B per step.
        for (unsigned k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (unsigned i = 0; i < TM; ++i) a[i] = As[ty * TM + i][k];
            for (unsigned j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
            for (unsigned i = 0; i < TM; ++i)
                for (unsigned j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (unsigned i = 0; i < TM; ++i)
        for (unsigned j = 0; j < TN; ++j) {
            const unsigned row = bm + ty * TM + i, col = bn + tx * TN + j;
            if (row < M && col < N) C[row * N + col] = acc[i][j];
        }
}

}  // namespace warplab::matmul
