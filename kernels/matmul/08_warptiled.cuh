// Matmul v8: warptiling and double buffering, tuned for Hopper.
//
// Idea: organise the block's threads the way the hardware runs them. Each
//   warp owns a WM×WN tile of C; inside it, lane (lr, lc) owns a TM×TN set of
//   elements made of 4×4 pieces spread over the warp tile: rows
//   lr·4 + i·(4·LM) and columns lc·4 + j·(4·LN), where LM × LN = 32 lanes.
//   The float4 reads of a quarter-warp then fall on consecutive float4 of
//   As and Bs (conflict-free without v7's swizzle), and a warp reads only
//   the WM + WN values of its own tile. Second, double buffering: two stages
//   of As/Bs; while the block computes on tile k from one stage, the loads of
//   tile k + 1 are already in flight into registers and go to the other
//   stage after the compute. One __syncthreads() per tile instead of two.
// Changed from v7: threads are numbered (lane, warp) = (threadIdx.x,
//   threadIdx.y) and placed by warp tile; each thread's TM×TN block is
//   strided; As/Bs have two stages; the loads of the next tile are issued
//   before the compute of this one; __launch_bounds__ caps registers so that
//   MIN_BLOCKS blocks fit on an SM; the loop over k inside a tile is unrolled
//   (#pragma unroll), so the reads of step k + 1 are issued during step k. As keeps
//   v7's padding; Bs needs no swizzle: with lanes placed by warp tile, a
//   quarter-warp reads consecutive float4. With BK = 16 the padding no longer
//   removes every conflict: a warp's transposed store writes k rows c, c + 4,
//   c + 8, c + 12, and rows 8 apart start 8·132 = 1056 = 0 mod 32 words
//   apart (2-way; no padding that keeps rows 16-byte aligned avoids it; 4-way
//   with BK = 32, where a warp writes 8 k rows). Those 16 scalar stores per
//   thread and tile sit beside 2048 multiply-adds; an XOR swizzle of As that
//   removes them measured slower on the H100 (its lane-dependent read
//   addresses cost registers and instructions). A block
//   whose tiles lie wholly inside A and B (with K a multiple of BK and N of
//   4) loads them with plain float4 reads, skipping v6's per-element bounds
//   checks; the others keep load_a4 / load_b4. On the H100 that was the
//   largest single gain of the tuning. The template is instantiated at a few
//   tile sizes; for each launch the lab picks one by the size of C and the
//   GPU's SM count (v8's entry in labs/matmul/versions.h).
// Expected effect: the global-memory latency of the next tile hides behind
//   the compute of this one, and each barrier interval now holds a whole
//   tile's compute plus the next tile's loads: the trace shows one step per
//   tile ("compute tile k, load tile k + 1") after the first load step.
//   Its time against cuBLAS's FP32 SGEMM is recorded in results/ (`warplab
//   bench matmul --recorded`).
// Preconditions: blockDim == (32, (BM/WM)·(BN/WN)); grid == (ceil(N / BN),
//   ceil(M / BM)); A, B, C 16-byte aligned; M·K, K·N and M·N below 2^32.
#pragma once
#include <cmath>

#include "kernels/matmul/06_vectorized.cuh"

namespace warplab::matmul {

template <unsigned BM, unsigned BN, unsigned BK, unsigned WM, unsigned WN, unsigned TM, unsigned TN, unsigned MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    matmul_warptiled(const float* __restrict__ A, const float* __restrict__ B, float* C,
                     unsigned M, unsigned N, unsigned K)
{
    constexpr unsigned THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr unsigned LM = WM / TM, LN = WN / TN;  // the warp's lanes: LM down, LN across
    constexpr unsigned LDA = BM + 4;                // padded row of the transposed As (v7)
    constexpr unsigned A4 = BM * BK / 4 / THREADS, B4 = BK * BN / 4 / THREADS;  // float4 per thread and tile
    static_assert(BM % WM == 0 && BN % WN == 0 && THREADS <= 1024, "whole warp tiles, at most 1024 threads");
    static_assert(WM % TM == 0 && WN % TN == 0 && LM * LN == 32, "a warp tile holds 32 thread tiles");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "float4 accesses: TM, TN and BK are multiples of 4");
    static_assert(A4 * 4 * THREADS == BM * BK && B4 * 4 * THREADS == BK * BN, "every thread loads the same number of float4");
    __shared__ float As[2 * BK * LDA];  // two stages, transposed and padded: As[s][k][m]
    __shared__ float Bs[2 * BK * BN];   // two stages: Bs[s][k][n]

    const unsigned lane = threadIdx.x, warp = threadIdx.y;
    const unsigned t = warp * 32 + lane;
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const unsigned wm = warp / (BN / WN) * WM, wn = warp % (BN / WN) * WN;  // the warp's tile in the block's
    const unsigned lr = lane / LN, lc = lane % LN;                           // the lane's place in the warp's

    // A block whose tiles lie wholly inside A and B (every block at 4096^3)
    // loads them without v6's per-element bounds checks.
    const bool inside = bm + BM <= M && bn + BN <= N && K % BK == 0 && N % 4 == 0;

    // The next tile, on its way from global memory to registers.
    float4 a_next[A4], b_next[B4];
    auto fetch = [&](unsigned k0) {
        if (inside) {
            for (unsigned l = 0; l < A4; ++l) {
                const unsigned r = (t + l * THREADS) / (BK / 4), c = (t + l * THREADS) % (BK / 4) * 4;
                a_next[l] = reinterpret_cast<const float4*>(A)[((bm + r) * K + k0 + c) / 4];
            }
            for (unsigned l = 0; l < B4; ++l) {
                const unsigned r = (t + l * THREADS) / (BN / 4), c = (t + l * THREADS) % (BN / 4) * 4;
                b_next[l] = reinterpret_cast<const float4*>(B)[((k0 + r) * N + bn + c) / 4];
            }
            return;
        }
        for (unsigned l = 0; l < A4; ++l) {
            const unsigned r = (t + l * THREADS) / (BK / 4), c = (t + l * THREADS) % (BK / 4) * 4;
            a_next[l] = load_a4(A, M, K, bm + r, k0 + c);
        }
        for (unsigned l = 0; l < B4; ++l) {
            const unsigned r = (t + l * THREADS) / (BN / 4), c = (t + l * THREADS) % (BN / 4) * 4;
            b_next[l] = load_b4(B, K, N, k0 + r, bn + c);
        }
    };
    // ... and from registers to shared-memory stage s.
    auto stash = [&](unsigned s) {
        for (unsigned l = 0; l < A4; ++l) {
            const unsigned r = (t + l * THREADS) / (BK / 4), c = (t + l * THREADS) % (BK / 4) * 4;
            As[s * BK * LDA + (c + 0) * LDA + r] = a_next[l].x;
            As[s * BK * LDA + (c + 1) * LDA + r] = a_next[l].y;
            As[s * BK * LDA + (c + 2) * LDA + r] = a_next[l].z;
            As[s * BK * LDA + (c + 3) * LDA + r] = a_next[l].w;
        }
        for (unsigned l = 0; l < B4; ++l) {
            const unsigned r = (t + l * THREADS) / (BN / 4), c = (t + l * THREADS) % (BN / 4) * 4;
            reinterpret_cast<float4*>(Bs)[(s * BK * BN + r * BN + c) / 4] = b_next[l];
        }
    };

    // Load tile 0 into stage 0.
    fetch(0);
    stash(0);
    __syncthreads();

    float acc[TM][TN] = {};
    const unsigned tiles = (K + BK - 1) / BK;
    for (unsigned tile = 0; tile < tiles; ++tile) {
        const unsigned s = tile % 2;
        if (tile + 1 < tiles) fetch((tile + 1) * BK);  // in flight during the compute below

        // Compute on tile `tile` from stage s.
        #pragma unroll
        for (unsigned k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (unsigned i = 0; i < TM / 4; ++i) {
                const float4 v = reinterpret_cast<float4*>(As)[(s * BK * LDA + k * LDA + wm + i * 4 * LM + lr * 4) / 4];
                a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
            }
            for (unsigned j = 0; j < TN / 4; ++j) {
                const float4 v = reinterpret_cast<float4*>(Bs)[(s * BK * BN + k * BN + wn + j * 4 * LN + lc * 4) / 4];
                b[4 * j] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
            }
            for (unsigned i = 0; i < TM; ++i)
                for (unsigned j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }

        // The next tile goes to the other stage, which nobody reads any more:
        // the barrier at the end of the previous tile saw to that.
        if (tile + 1 < tiles) stash(1 - s);
        __syncthreads();
    }

    for (unsigned i = 0; i < TM; ++i)
        for (unsigned j = 0; j < TN / 4; ++j)
            store_c4(C, M, N, bm + wm + i / 4 * 4 * LM + lr * 4 + i % 4, bn + wn + j * 4 * LN + lc * 4,
                     make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]));
}

}  // namespace warplab::matmul
