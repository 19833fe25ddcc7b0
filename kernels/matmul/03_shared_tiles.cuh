// Matmul v3: shared-memory tiling (the Mds/Nds kernel of Kirk and Hwu,
// "Programming Massively Parallel Processors").
//
// Idea: the TILE×TILE threads of a block compute a TILE×TILE tile of C. They
//   walk along K one tile at a time: together they copy a TILE×TILE tile of A
//   and one of B into shared memory (one element each), wait, and then every
//   thread takes TILE products from shared memory.
// Changed from v2: the inner loop reads shared memory, not global memory;
//   global memory is read once per tile by the whole block. Elements outside
//   A or B are stored as 0 in the tiles, so any M, N, K works.
// Expected effect: each element of A and B is read from global memory once
//   per block instead of once per thread that needs it: TILE (= 32) times
//   fewer global loads. The trace has two steps per tile: "load tile k"
//   (ends at the first __syncthreads) and "compute tile k" (ends at the
//   second); the shared reads are conflict-free (As[ty][k] is one word for
//   the whole warp, a broadcast; Bs[k][tx] is 32 consecutive words).
// Preconditions: blockDim == (TILE, TILE); grid == (ceil(N / TILE),
//   ceil(M / TILE)); M·K, K·N and M·N below 2^32.
#pragma once
#include <cmath>

namespace warplab::matmul {

template <unsigned TILE>
__global__ void matmul_shared_tiles(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                    unsigned M, unsigned N, unsigned K)
{
    static_assert(TILE % 32 == 0 && TILE * TILE <= 1024, "TILE×TILE threads in whole warps, at most 1024");
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned row = blockIdx.y * TILE + ty;
    const unsigned col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (unsigned k0 = 0; k0 < K; k0 += TILE) {
        // Load tile k: one element of A's tile and one of B's per thread.
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();

        // Compute on tile k: TILE products from shared memory.
        for (unsigned k = 0; k < TILE; ++k) {
            const float a = As[ty][k];
            const float b = Bs[k][tx];
            acc = fmaf(a, b, acc);
        }
        __syncthreads();
    }

    if (row < M && col < N) C[row * N + col] = acc;
}

}  // namespace warplab::matmul
