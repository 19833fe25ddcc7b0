// Matmul v4: 1D register blocking (block tiling): each thread computes a
// column of TM results.
//
// Idea: in v3 every product costs two shared-memory loads. Let each thread
//   compute TM elements of one column of C instead of one: per step k it loads
//   b = Bs[k][tx] once into a register and reuses it for TM products with
//   As[ty*TM + i][k]. The block computes a BM×BN tile of C with BN × BM/TM
//   threads and walks K in tiles of BK.
// Changed from v3: tiles are BM×BK (A) and BK×BN (B) instead of TILE×TILE;
//   each thread keeps TM running sums in registers (acc[TM]) and loads
//   BM·BK/threads elements of each tile.
// Expected effect: shared loads per product fall from 2 to (1 + TM)/TM
//   (1.125 for TM = 8), and there are TM times fewer threads doing the index
//   arithmetic per result. The compute step's As loads are broadcasts (the 32
//   lanes of a warp share ty), its Bs loads 32 consecutive words: no bank
//   conflicts. Loads of A read rows of BK = 8 floats: 32 bytes, one sector
//   per row, 4 sectors per request.
// Preconditions: blockDim == (BN, BM / TM); grid == (ceil(N / BN),
//   ceil(M / BM)); M·K, K·N and M·N below 2^32.
#pragma once
#include <cmath>

namespace warplab::matmul {

template <unsigned BM, unsigned BN, unsigned BK, unsigned TM>
__global__ void matmul_1d_blocktiling(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                      unsigned M, unsigned N, unsigned K)
{
    constexpr unsigned THREADS = BN * (BM / TM);
    static_assert(BM % TM == 0 && BN % 32 == 0 && THREADS <= 1024, "BN × BM/TM threads in whole warps, at most 1024");
    static_assert((BM * BK) % THREADS == 0 && (BK * BN) % THREADS == 0, "every thread loads the same number of elements");
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned t = ty * BN + tx;  // this thread's index in the block
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM] = {};
    for (unsigned k0 = 0; k0 < K; k0 += BK) {
        // Load tile k: BM·BK/THREADS elements of A's tile and BK·BN/THREADS of B's.
        for (unsigned l = 0; l < BM * BK / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / BK, c = (t + l * THREADS) % BK;
            As[r][c] = (bm + r < M && k0 + c < K) ? A[(bm + r) * K + k0 + c] : 0.0f;
        }
        for (unsigned l = 0; l < BK * BN / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / BN, c = (t + l * THREADS) % BN;
            Bs[r][c] = (k0 + r < K && bn + c < N) ? B[(k0 + r) * N + bn + c] : 0.0f;
        }
        __syncthreads();

        // Compute on tile k: one B value in a register serves TM products.
        for (unsigned k = 0; k < BK; ++k) {
            const float b = Bs[k][tx];
            for (unsigned i = 0; i < TM; ++i) {
                const float a = As[ty * TM + i][k];
                acc[i] = fmaf(a, b, acc[i]);
            }
        }
        __syncthreads();
    }

    const unsigned col = bn + tx;
    for (unsigned i = 0; i < TM; ++i) {
        const unsigned row = bm + ty * TM + i;
        if (row < M && col < N) C[row * N + col] = acc[i];
    }
}

}  // namespace warplab::matmul
