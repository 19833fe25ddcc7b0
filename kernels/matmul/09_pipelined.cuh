// Matmul v9: a multistage copy pipeline, so that the FMA pipe never waits.
//
// Idea: v8 brings tile k + 1 through registers: each thread loads it, computes
//   tile k, stores the registers to shared memory and waits at a barrier,
//   after which its first multiply-adds wait for their first shared reads.
//   Three changes keep the multiply-adds coming without a gap:
//   - cp.async copies global memory straight into shared memory, without
//     registers or stores, into a ring of STAGES stages: two tiles are on
//     their way while the block computes on a third. Each thread's copies of
//     the next tile are spread over the k steps of this one.
//   - Fragments (a lane's TM values of A and TN of B at one k) come in two
//     sets: step k + 1's reads are issued before step k's multiply-adds, also
//     across a tile's end (the barrier sits before a tile's last step, which
//     reads the next stage's first fragments).
//   - A step's multiply-adds go column by column, down one column and up the
//     next, so each FFMA shares an operand with the one before. The SM's
//     operand reuse cache then supplies it, not the register file, whose bank
//     conflicts otherwise hold FFMAs back (Nsight Compute's "dispatch stall").
// Changed from v8: 8 warps of 64×64 (8×16 per lane, v8's pieces) per
//   128×256 tile; STAGES stages of As/Bs in dynamic shared memory, filled by
//   4-byte copies of A (they transpose it, as v8's stores did) and 16-byte
//   copies of B; each thread's copy addresses are computed once and moved
//   BK along per tile; two fragment sets; the FFMA order. A block whose tiles
//   lie wholly inside A and B (and K at least STAGES tiles deep) copies
//   without bounds checks (v8's fast path); the others copy zeros outside A
//   and B (cp.async's src-size 0).
// Expected effect: at large sizes level with cuBLAS's FP32 SGEMM, itself a
//   kernel of this kind; at small sizes slower than v8, whose smaller tiles
//   keep every SM busy (1024^3 makes 32 blocks of 128×256 for 132 SMs). The
//   trace shows one step per tile, as v8's, with the copies of tile k + 2 in
//   the step that computes tile k.
// Preconditions: blockDim == (32, (BM/WM)·(BN/WN)); grid == (ceil(N / BN),
//   ceil(M / BM)); STAGES·BK·(BM + 4 + BN) floats of dynamic shared memory;
//   A, B, C 16-byte aligned; M·K, K·N and M·N below 2^32.
#pragma once
#include <cstddef>

#include "kernels/matmul/06_vectorized.cuh"

namespace warplab::matmul {

__device__ inline unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// Copies `bytes` (16 or 4) from global to shared memory without registers;
// zeros instead where !inside (src-size 0: nothing is read).
template <unsigned bytes> __device__ inline void copy_async(unsigned dst, const float* src, bool inside)
{
    if constexpr (bytes == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(inside ? 4 : 0) : "memory");
}
__device__ inline void copy_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <unsigned pending> __device__ inline void copy_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(pending) : "memory"); }

// Adds k-tiles first … first + count - 1 of the block's BM×BN tile of C at
// (bm, bn) into acc, this lane's TM×TN results; WHOLE: those tiles of A and B
// lie wholly inside them.
template <unsigned BM, unsigned BN, unsigned BK, unsigned WM, unsigned WN, unsigned TM, unsigned TN, unsigned STAGES, bool WHOLE>
__device__ __forceinline__ void multiply_block_tile(const float* __restrict__ A, const float* __restrict__ B, unsigned M,
                                                    unsigned N, unsigned K, unsigned bm, unsigned bn, unsigned first,
                                                    unsigned count, float (&acc)[TM][TN])
{
    constexpr unsigned THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr unsigned LM = WM / TM, LN = WN / TN;  // the warp's lanes: LM down, LN across
    constexpr unsigned LDA = BM + 4;                // padded row of the transposed As (v7)
    constexpr unsigned STAGE = BK * LDA + BK * BN;  // floats of one stage: As[k][m], then Bs[k][n]
    constexpr unsigned A1 = BM * BK / THREADS;      // 4-byte copies of A per thread and tile
    constexpr unsigned B4 = BK * BN / 4 / THREADS;  // 16-byte copies of B per thread and tile
    constexpr unsigned COPIES = A1 + B4;
    constexpr unsigned A_ROWS = THREADS / BK, B_ROWS = THREADS / (BN / 4);  // rows between a thread's copies
    static_assert(WM % TM == 0 && WN % TN == 0 && LM * LN == 32, "a warp tile holds 32 thread tiles");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 2 == 0, "float4 fragments; two fragment sets alternate");
    static_assert(A1 * THREADS == BM * BK && B4 * 4 * THREADS == BK * BN && THREADS % BK == 0 &&
                      THREADS % (BN / 4) == 0 && STAGES >= 2,
                  "every thread copies the same number of elements");
    extern __shared__ float4 ring4[];
    float* const ring = reinterpret_cast<float*>(ring4);
    const unsigned ring_address = shared_address(ring);

    const unsigned lane = threadIdx.x, warp = threadIdx.y;
    const unsigned t = warp * 32 + lane;
    const unsigned wm = warp / (BN / WN) * WM, wn = warp % (BN / WN) * WN;  // the warp's tile in the block's
    const unsigned lr = lane / LN, lc = lane % LN;                           // the lane's place in the warp's

    // This thread's copies of a tile: A at rows ar + c·A_ROWS, column ak; B at
    // rows br + c·B_ROWS, columns bc … bc + 3. Sources move BK along per tile.
    const unsigned ar = t / BK, ak = t % BK, br = t / (BN / 4), bc = t % (BN / 4) * 4;
    const float* a_src = A + std::size_t(bm + ar) * K + first * BK + ak;
    const float* b_src = B + std::size_t(first * BK + br) * N + bn + bc;
    const std::size_t a_step = std::size_t(A_ROWS) * K, b_step = std::size_t(B_ROWS) * N;
    const unsigned a_dst = (ak * LDA + ar) * 4, b_dst = (BK * LDA + br * BN + bc) * 4;  // bytes into a stage

    // Copy number c (A's first, then B's) of the tile that starts at k0 into
    // the stage at shared address `stage`.
    auto copy = [&](unsigned c, unsigned stage, unsigned k0) {
        if (c < A1) {
            const unsigned dst = stage + a_dst + c * A_ROWS * 4;
            const bool in = WHOLE || (bm + ar + c * A_ROWS < M && k0 + ak < K);
            copy_async<4>(dst, in ? a_src + c * a_step : A, in);
            return;
        }
        const unsigned l = c - A1, dst = stage + b_dst + l * B_ROWS * BN * 4;
        const unsigned row = k0 + br + l * B_ROWS, col = bn + bc;
        if (WHOLE || N % 4 == 0) {  // rows of B start 16-byte aligned
            const bool in = WHOLE || (row < K && col < N);
            copy_async<16>(dst, in ? b_src + l * b_step : B, in);
        } else {
            for (unsigned q = 0; q < 4; ++q) {
                const bool in = row < K && col + q < N;
                copy_async<4>(dst + 4 * q, in ? b_src + l * b_step + q : B, in);
            }
        }
    };
    auto advance = [&] { a_src += BK, b_src += std::size_t(BK) * N; };

    // Tiles 0 … STAGES - 2 on their way, one commit group each; tile 0 landed.
    for (unsigned s = 0; s + 1 < STAGES; ++s) {
        if (s < count) {
            for (unsigned c = 0; c < COPIES; ++c) copy(c, ring_address + s * STAGE * 4, (first + s) * BK);
            advance();
        }
        copy_async_commit();
    }
    copy_async_wait<STAGES - 2>();
    __syncthreads();

    // A lane's fragments at step k of the stage at `stage` (v8's float4 reads).
    auto read_fragments = [&](const float* stage, unsigned k, float* a, float* b) {
        for (unsigned i = 0; i < TM / 4; ++i) {
            const float4 v = reinterpret_cast<const float4*>(stage)[(k * LDA + wm + i * 4 * LM + lr * 4) / 4];
            a[4 * i] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
        }
        for (unsigned j = 0; j < TN / 4; ++j) {
            const float4 v = reinterpret_cast<const float4*>(stage)[(BK * LDA + k * BN + wn + j * 4 * LN + lc * 4) / 4];
            b[4 * j] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
        }
    };
    float a[2][TM], b[2][TN];  // step k's fragments in set k % 2, step k + 1's in the other
    unsigned read = 0, write = STAGES - 1;  // the stage computed on, the stage being filled
    const float* stage = ring;
    read_fragments(stage, 0, a[0], b[0]);

    for (unsigned tile = 0; tile < count; ++tile) {
        const unsigned next = tile + STAGES - 1;  // the tile whose copies this one issues
        const unsigned into = ring_address + write * STAGE * 4;
        #pragma unroll
        for (unsigned k = 0; k < BK; ++k) {
            if (k == BK - 1) {  // the next stage: its copies landed, and everyone read this one's last fragments
                copy_async_wait<STAGES - 2>();
                __syncthreads();
                read = read + 1 == STAGES ? 0 : read + 1;
                stage = ring + read * STAGE;
            }
            if (k + 1 < BK)
                read_fragments(stage, k + 1, a[(k + 1) % 2], b[(k + 1) % 2]);
            else  // the next tile's first fragments; after the last tile, any stage already filled (never used)
                read_fragments(WHOLE || tile + 1 < count ? stage : ring, 0, a[0], b[0]);
            if (k + 1 < BK && next < count)  // copies c in [k·COPIES/(BK-1), (k+1)·COPIES/(BK-1)) at step k
                #pragma unroll
                for (unsigned c = k * COPIES / (BK - 1); c < (k + 1) * COPIES / (BK - 1); ++c) copy(c, into, (first + next) * BK);
            if (k == BK - 2) {
                if (next < count) advance();
                copy_async_commit();  // one group per tile, empty ones too: wait_group counts them
                write = write + 1 == STAGES ? 0 : write + 1;
            }
            // Column j down (j even) or up (j odd): each FFMA reuses an operand of the one before.
            #pragma unroll
            for (unsigned j = 0; j < TN; ++j)
                #pragma unroll
                for (unsigned n = 0; n < TM; ++n) {
                    const unsigned i = j % 2 ? TM - 1 - n : n;
                    acc[i][j] = fmaf(a[k % 2][i], b[k % 2][j], acc[i][j]);
                }
        }
    }
}

// Stores acc, this lane's TM×TN results, into the block's tile of C at (bm, bn).
template <unsigned BN, unsigned WM, unsigned WN, unsigned TM, unsigned TN>
__device__ __forceinline__ void store_block_tile(float* C, unsigned M, unsigned N, unsigned bm, unsigned bn,
                                                 const float (&acc)[TM][TN])
{
    constexpr unsigned LM = WM / TM, LN = WN / TN;
    const unsigned lane = threadIdx.x, warp = threadIdx.y;
    const unsigned wm = warp / (BN / WN) * WM, wn = warp % (BN / WN) * WN, lr = lane / LN, lc = lane % LN;
    for (unsigned i = 0; i < TM; ++i)
        for (unsigned j = 0; j < TN / 4; ++j)
            store_c4(C, M, N, bm + wm + i / 4 * 4 * LM + lr * 4 + i % 4, bn + wn + j * 4 * LN + lc * 4,
                     make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]));
}

// One block's BM×BN tile of C, all of K.
template <unsigned BM, unsigned BN, unsigned BK, unsigned WM, unsigned WN, unsigned TM, unsigned TN, unsigned STAGES, bool WHOLE>
__device__ __forceinline__ void pipelined_block(const float* __restrict__ A, const float* __restrict__ B, float* C,
                                                unsigned M, unsigned N, unsigned K)
{
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[TM][TN] = {};
    multiply_block_tile<BM, BN, BK, WM, WN, TM, TN, STAGES, WHOLE>(A, B, M, N, K, bm, bn, 0, (K + BK - 1) / BK, acc);
    store_block_tile<BN, WM, WN, TM, TN>(C, M, N, bm, bn, acc);
}

template <unsigned BM, unsigned BN, unsigned BK, unsigned WM, unsigned WN, unsigned TM, unsigned TN, unsigned STAGES,
          unsigned MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    matmul_pipelined(const float* __restrict__ A, const float* __restrict__ B, float* C, unsigned M, unsigned N, unsigned K)
{
    // Whole: inside A and B, and at least STAGES tiles deep (so every stage is filled once).
    const bool whole =
        (blockIdx.y + 1) * BM <= M && (blockIdx.x + 1) * BN <= N && K % BK == 0 && K >= STAGES * BK && N % 4 == 0;
    if (!whole)  // this order measured faster on the H100 than the other
        pipelined_block<BM, BN, BK, WM, WN, TM, TN, STAGES, false>(A, B, C, M, N, K);
    else
        pipelined_block<BM, BN, BK, WM, WN, TM, TN, STAGES, true>(A, B, C, M, N, K);
}

}  // namespace warplab::matmul
