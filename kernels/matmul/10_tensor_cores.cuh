// Matmul v10: tensor cores, in TF32.
//
// Idea: let the tensor cores do the multiply-adds. One warp-wide instruction,
//   mma.sync.m16n8k8 (PTX, inline assembly), multiplies a 16×8 piece of A by
//   an 8×8 piece of B and adds the 16×8 product to C: 1024 multiply-adds in
//   one instruction, where v8 needed 32 lanes × 32 FFMA. Its inputs are TF32
//   (the 8-bit exponent of a float, 10 of its 23 mantissa bits); it adds in
//   FP32. The result is no longer FP32 SGEMM: each product carries a relative
//   error of up to about 2^-10, so v10 is compared with cuBLAS in TF32 mode.
// Changed from v8 (it starts again from v8, not from v9's FP32 pipeline, so
//   that the one change is the multiply): the block, its warps' 64×64 tiles,
//   BK and the double buffering are v8's; the compute step is 4 × 8 mma.sync per 8 k instead
//   of FFMA on 8×16 registers, and each lane holds the pieces of A, B and C
//   that mma.sync assigns it (PTX ISA, "Matrix Fragments for mma.m16n8k8":
//   lane = 4·group + t reads A rows group and group + 8 at k = t and t + 4,
//   B column group at k = t and t + 4, and holds C rows group and group + 8,
//   columns 2t and 2t + 1). The shared layout follows those reads, so that
//   the 32 lanes of each one hit 32 different banks: As is no longer
//   transposed (As[m][k], rows of BK + 4 = 20 floats: lane words
//   20·group + t) and takes A's float4 as it comes; Bs rows are padded by 8
//   floats (lane words 136·t + group, banks 8t + group).
// Expected effect: several times v8's speed at large sizes, with errors of
//   TF32's size (about 1e-4 of C's norm instead of 1e-7). Still well short of
//   cuBLAS in TF32, which on Hopper issues wgmma from four warps at once, fed
//   by the bulk copy engine several stages deep; v10 keeps v8's pipeline (one
//   tile in flight through registers, a barrier per 16 k, 8 warps per SM).
// On the emulator, mma.sync is a warp collective (the lanes' fragments meet).
// Preconditions: blockDim == (32, (BM/WM)·(BN/WN)); grid == (ceil(N / BN),
//   ceil(M / BM)); A, B, C 16-byte aligned; M·K, K·N and M·N below 2^32.
#pragma once

#include "kernels/matmul/06_vectorized.cuh"

namespace warplab::matmul {

// D = A·B + D for one 16×8×8 piece, held as mma.sync's fragments.
__device__ inline void mma_tf32_16x8x8(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// C[row][col] and C[row][col + 1], each where it lies inside C.
__device__ inline void store_c2(float* C, unsigned M, unsigned N, unsigned row, unsigned col, float x, float y)
{
    if (row >= M) return;
    if (N % 2 == 0 && col + 1 < N) {
        reinterpret_cast<float2*>(C)[(row * N + col) / 2] = make_float2(x, y);
        return;
    }
    if (col < N) C[row * N + col] = x;
    if (col + 1 < N) C[row * N + col + 1] = y;
}

template <unsigned BM, unsigned BN, unsigned BK, unsigned WM, unsigned WN, unsigned MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    matmul_tensor_cores(const float* __restrict__ A, const float* __restrict__ B, float* C,
                        unsigned M, unsigned N, unsigned K)
{
    constexpr unsigned THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr unsigned FM = WM / 16, FN = WN / 8;   // mma pieces of the warp's tile: FM down, FN across
    constexpr unsigned LDA = BK + 4, LDB = BN + 8;  // padded rows: fragment reads hit 32 different banks
    constexpr unsigned A4 = BM * BK / 4 / THREADS, B4 = BK * BN / 4 / THREADS;  // float4 per thread and tile
    static_assert(BM % WM == 0 && BN % WN == 0 && THREADS <= 1024, "whole warp tiles, at most 1024 threads");
    static_assert(WM % 16 == 0 && WN % 8 == 0 && BK % 8 == 0, "warp tiles of whole 16×8 pieces, tiles of whole k steps");
    static_assert(A4 * 4 * THREADS == BM * BK && B4 * 4 * THREADS == BK * BN, "every thread loads the same number of float4");
    __shared__ float As[2 * BM * LDA];  // two stages, padded: As[s][m][k]
    __shared__ float Bs[2 * BK * LDB];  // two stages, padded: Bs[s][k][n]

    const unsigned lane = threadIdx.x, warp = threadIdx.y;
    const unsigned t = warp * 32 + lane;
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const unsigned wm = warp / (BN / WN) * WM, wn = warp % (BN / WN) * WN;  // the warp's tile in the block's
    const unsigned group = lane / 4, tig = lane % 4;                        // the lane's place in a fragment

    const bool inside = bm + BM <= M && bn + BN <= N && K % BK == 0 && N % 4 == 0;

    // The next tile, on its way from global memory to registers (v8's).
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
            reinterpret_cast<float4*>(As)[(s * BM * LDA + r * LDA + c) / 4] = a_next[l];
        }
        for (unsigned l = 0; l < B4; ++l) {
            const unsigned r = (t + l * THREADS) / (BN / 4), c = (t + l * THREADS) % (BN / 4) * 4;
            reinterpret_cast<float4*>(Bs)[(s * BK * LDB + r * LDB + c) / 4] = b_next[l];
        }
    };

    fetch(0);
    stash(0);
    __syncthreads();

    float acc[FM][FN][4] = {};
    const unsigned tiles = (K + BK - 1) / BK;
    for (unsigned tile = 0; tile < tiles; ++tile) {
        const unsigned s = tile % 2;
        if (tile + 1 < tiles) fetch((tile + 1) * BK);  // in flight during the compute below

        // Compute on tile `tile` from stage s, 8 k at a time. The tensor
        // cores read a float's top 19 bits as TF32.
        const float* as = As + s * BM * LDA;
        const float* bs = Bs + s * BK * LDB;
        #pragma unroll
        for (unsigned k = 0; k < BK; k += 8) {
            unsigned a[FM][4], b[FN][2];
            #pragma unroll
            for (unsigned i = 0; i < FM; ++i) {
                const unsigned m = wm + i * 16 + group;
                a[i][0] = __float_as_uint(as[m * LDA + k + tig]);
                a[i][1] = __float_as_uint(as[(m + 8) * LDA + k + tig]);
                a[i][2] = __float_as_uint(as[m * LDA + k + tig + 4]);
                a[i][3] = __float_as_uint(as[(m + 8) * LDA + k + tig + 4]);
            }
            #pragma unroll
            for (unsigned j = 0; j < FN; ++j) {
                const unsigned n = wn + j * 8 + group;
                b[j][0] = __float_as_uint(bs[(k + tig) * LDB + n]);
                b[j][1] = __float_as_uint(bs[(k + tig + 4) * LDB + n]);
            }
            #pragma unroll
            for (unsigned i = 0; i < FM; ++i)
                #pragma unroll
                for (unsigned j = 0; j < FN; ++j) mma_tf32_16x8x8(acc[i][j], a[i], b[j]);
        }

        if (tile + 1 < tiles) stash(1 - s);
        __syncthreads();
    }

    #pragma unroll
    for (unsigned i = 0; i < FM; ++i)
        #pragma unroll
        for (unsigned j = 0; j < FN; ++j) {
            const unsigned row = bm + wm + i * 16 + group, col = bn + wn + j * 8 + 2 * tig;
            store_c2(C, M, N, row, col, acc[i][j][0], acc[i][j][1]);
            store_c2(C, M, N, row + 8, col, acc[i][j][2], acc[i][j][3]);
        }
}

}  // namespace warplab::matmul
