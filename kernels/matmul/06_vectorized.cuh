// Matmul v6: 128-bit loads and stores; A's tile stored transposed.
//
// Idea: move four floats per instruction. Global loads of A and B become
//   float4 loads (one instruction, 16 bytes per lane); A's tile is stored
//   TRANSPOSED in shared memory (As[k][m]), so that the TM values of A a
//   thread needs at step k are consecutive, like the TN values of B: both are
//   read as float4. The results go back to C as float4 stores.
// Changed from v5: tile loads read float4 (one of A's rows of BK = 8 floats is
//   two float4); A's float4 is written to As as four scalars, one per k row;
//   B's float4 is written to Bs as one float4; the compute step reads TM/4 +
//   TN/4 float4 instead of TM + TN floats. Where K or N is not a multiple of
//   4, rows are not 16-byte aligned: the loads and stores fall back to four
//   scalar accesses (load_a4, load_b4, store_c4), so any M, N, K still works.
// Expected effect: a quarter of the load and store instructions. The trace now
//   shows 16-byte shared accesses, served 8 lanes at a time (16 when lanes
//   read in pairs), and two 2-way bank conflicts: (1) the stores to As: lanes 2i
//   and 2i+1 write k rows 4 apart, and a row of As is BM = 128 words, a
//   multiple of 32, so both land in bank i; (2) the float4 reads of Bs: lane
//   tx reads words 8·tx..8·tx+3, so lanes tx and tx + 4 of a quarter-warp
//   share banks. v7 removes both.
// Preconditions: blockDim == (BN / TN, BM / TM); grid == (ceil(N / BN),
//   ceil(M / BM)); A, B, C 16-byte aligned (cudaMalloc); TM, TN multiples of 4;
//   M·K, K·N and M·N below 2^32.
#pragma once
#include <cmath>

namespace warplab::matmul {

// A[row][k..k+3], zero outside A. K % 4 == 0: one 128-bit load (k is a
// multiple of 4, so the float4 is all inside A or all outside); else four
// scalar loads.
__device__ inline float4 load_a4(const float* __restrict__ A, unsigned M, unsigned K, unsigned row, unsigned k)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row >= M) return v;
    if (K % 4 == 0) {
        if (k < K) v = reinterpret_cast<const float4*>(A)[(row * K + k) / 4];
    } else {
        if (k < K) v.x = A[row * K + k];
        if (k + 1 < K) v.y = A[row * K + k + 1];
        if (k + 2 < K) v.z = A[row * K + k + 2];
        if (k + 3 < K) v.w = A[row * K + k + 3];
    }
    return v;
}

// B[k][col..col+3], zero outside B; one 128-bit load when N % 4 == 0.
__device__ inline float4 load_b4(const float* __restrict__ B, unsigned K, unsigned N, unsigned k, unsigned col)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (k >= K) return v;
    if (N % 4 == 0) {
        if (col < N) v = reinterpret_cast<const float4*>(B)[(k * N + col) / 4];
    } else {
        if (col < N) v.x = B[k * N + col];
        if (col + 1 < N) v.y = B[k * N + col + 1];
        if (col + 2 < N) v.z = B[k * N + col + 2];
        if (col + 3 < N) v.w = B[k * N + col + 3];
    }
    return v;
}

// C[row][col..col+3] = v, only the part inside C; one 128-bit store when N % 4 == 0.
__device__ inline void store_c4(float* C, unsigned M, unsigned N, unsigned row, unsigned col, float4 v)
{
    if (row >= M) return;
    if (N % 4 == 0) {
        if (col < N) reinterpret_cast<float4*>(C)[(row * N + col) / 4] = v;
    } else {
        if (col < N) C[row * N + col] = v.x;
        if (col + 1 < N) C[row * N + col + 1] = v.y;
        if (col + 2 < N) C[row * N + col + 2] = v.z;
        if (col + 3 < N) C[row * N + col + 3] = v.w;
    }
}

template <unsigned BM, unsigned BN, unsigned BK, unsigned TM, unsigned TN>
__global__ void matmul_vectorized(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                  unsigned M, unsigned N, unsigned K)
{
    constexpr unsigned THREADS = (BM / TM) * (BN / TN);
    static_assert(BM % TM == 0 && BN % TN == 0 && THREADS % 32 == 0 && THREADS <= 1024,
                  "(BN/TN) × (BM/TM) threads in whole warps, at most 1024");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "float4 accesses: TM, TN and BK are multiples of 4");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "every thread loads the same number of float4");
    __shared__ float As[BK * BM];  // transposed: As[k * BM + m]
    __shared__ float Bs[BK * BN];  // Bs[k * BN + n]

    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned t = ty * (BN / TN) + tx;
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (unsigned k0 = 0; k0 < K; k0 += BK) {
        // Load tile k: float4 from global memory; A's goes in transposed.
        for (unsigned l = 0; l < BM * BK / 4 / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / (BK / 4), c = (t + l * THREADS) % (BK / 4) * 4;
            const float4 a = load_a4(A, M, K, bm + r, k0 + c);
            As[(c + 0) * BM + r] = a.x;
            As[(c + 1) * BM + r] = a.y;
            As[(c + 2) * BM + r] = a.z;
            As[(c + 3) * BM + r] = a.w;
        }
        for (unsigned l = 0; l < BK * BN / 4 / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / (BN / 4), c = (t + l * THREADS) % (BN / 4) * 4;
            reinterpret_cast<float4*>(Bs)[(r * BN + c) / 4] = load_b4(B, K, N, k0 + r, bn + c);
        }
        __syncthreads();

        // Compute on tile k: TM/4 + TN/4 float4 reads feed TM·TN products.
        for (unsigned k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (unsigned i = 0; i < TM; i += 4) {
                const float4 v = reinterpret_cast<float4*>(As)[(k * BM + ty * TM + i) / 4];
                a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
            }
            for (unsigned j = 0; j < TN; j += 4) {
                const float4 v = reinterpret_cast<float4*>(Bs)[(k * BN + tx * TN + j) / 4];
                b[j] = v.x, b[j + 1] = v.y, b[j + 2] = v.z, b[j + 3] = v.w;
            }
            for (unsigned i = 0; i < TM; ++i)
                for (unsigned j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (unsigned i = 0; i < TM; ++i)
        for (unsigned j = 0; j < TN; j += 4)
            store_c4(C, M, N, bm + ty * TM + i, bn + tx * TN + j,
                     make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
}

}  // namespace warplab::matmul
