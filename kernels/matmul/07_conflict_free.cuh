// Matmul v7: bank-conflict-free shared layout: As padded, Bs swizzled.
//
// Idea: v6's two 2-way conflicts come from the layout of the tiles, not from
//   the accesses themselves, so change the layout and keep the accesses.
//   (1) Pad each k row of the transposed As by 4 floats: the row length
//   BM + 4 = 132 is 4 mod 32, so the four k rows one lane pair writes
//   (c = 0 and c = 4) start 16 banks apart and the transposed stores use all
//   32 banks. 4 (not 1) keeps every row 16-byte aligned for the float4 reads.
//   (2) Swizzle Bs: within a k row, float4 number c is stored at float4
//   c ^ ((c >> 3) & 1). A quarter-warp reads float4 0, 2, ..., 14 (two
//   per thread, TN = 8): without the swizzle 0..6 and 8..14 cover the same
//   banks; with it 8..14 move to 9..15, the odd bank groups. The same XOR
//   applied on the store side keeps every float4 in one piece.
// Changed from v6: the index of As rows is k * (BM + 4); Bs is read and
//   written through swizzle(); the tile is 4·BK floats larger.
// Expected effect: zero bank conflicts in every step (the trace's shared wf
//   column shows actual = ideal), at the cost of 128 bytes of padding.
// Preconditions: as v6, and TN == 8 (the swizzle is made for two float4 per
//   thread and row).
#pragma once
#include <cmath>

#include "kernels/matmul/06_vectorized.cuh"

namespace warplab::matmul {

// Where float4 number c of a row of Bs is stored. Float4 c and c + 8 cover the
// same four banks; flipping bit 0 of c when bit 3 is set swaps 8<->9, 10<->11,
// ..., so the even float4 0, 2, ..., 14 that a quarter-warp reads land in
// eight different groups of banks (and the odd ones too).
__device__ inline unsigned swizzle(unsigned c) { return c ^ ((c >> 3) & 1u); }

template <unsigned BM, unsigned BN, unsigned BK, unsigned TM, unsigned TN>
__global__ void matmul_conflict_free(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                     unsigned M, unsigned N, unsigned K)
{
    constexpr unsigned THREADS = (BM / TM) * (BN / TN);
    constexpr unsigned LDA = BM + 4;  // padded row of the transposed As
    static_assert(BM % TM == 0 && BN % TN == 0 && THREADS % 32 == 0 && THREADS <= 1024,
                  "(BN/TN) × (BM/TM) threads in whole warps, at most 1024");
    static_assert(TM % 4 == 0 && TN == 8 && BK % 4 == 0 && BN % 64 == 0,
                  "float4 accesses; the swizzle is made for TN = 8 and rows of whole groups of 16 float4");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "every thread loads the same number of float4");
    __shared__ float As[BK * LDA];  // transposed and padded: As[k * LDA + m]
    __shared__ float Bs[BK * BN];   // swizzled: float4 c of row k at float4 k * BN/4 + swizzle(c)

    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned t = ty * (BN / TN) + tx;
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (unsigned k0 = 0; k0 < K; k0 += BK) {
        // Load tile k.
        for (unsigned l = 0; l < BM * BK / 4 / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / (BK / 4), c = (t + l * THREADS) % (BK / 4) * 4;
            const float4 a = load_a4(A, M, K, bm + r, k0 + c);
            As[(c + 0) * LDA + r] = a.x;
            As[(c + 1) * LDA + r] = a.y;
            As[(c + 2) * LDA + r] = a.z;
            As[(c + 3) * LDA + r] = a.w;
        }
        for (unsigned l = 0; l < BK * BN / 4 / THREADS; ++l) {
            const unsigned r = (t + l * THREADS) / (BN / 4), c = (t + l * THREADS) % (BN / 4);
            reinterpret_cast<float4*>(Bs)[r * (BN / 4) + swizzle(c)] = load_b4(B, K, N, k0 + r, bn + 4 * c);
        }
        __syncthreads();

        // Compute on tile k.
        for (unsigned k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            for (unsigned i = 0; i < TM; i += 4) {
                const float4 v = reinterpret_cast<float4*>(As)[(k * LDA + ty * TM + i) / 4];
                a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
            }
            for (unsigned j = 0; j < TN; j += 4) {
                const float4 v = reinterpret_cast<float4*>(Bs)[k * (BN / 4) + swizzle((tx * TN + j) / 4)];
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
