// Matmul v13: stream-K, so that every SM gets the same share of the work.
//
// Idea: v9 gives each block one 128×256 tile of C, and the GPU runs them in
//   waves of one block per SM. When the tiles do not divide evenly among the
//   SMs, the last wave leaves SMs idle: 512 tiles on 132 SMs make 3 full
//   waves and one of 116 (12 % idle for a quarter of the time); 32 tiles at
//   1024^3 leave 100 SMs idle throughout. Stream-K (Osama, Merrill, Cecka,
//   Garland and Owens) counts the work in k-tiles, the BK-deep steps of one
//   tile, not in tiles: one block per SM, each given the same number of
//   k-tiles in a row. Where a block's share ends in the middle of a tile, the
//   tile's blocks each add their k-tiles into registers, and the last to
//   finish adds the others' sums (left in a workspace) to its own.
// Changed from v9 (the FP32 ladder's last step; v10 to v12 are TF32): v9's
//   loop over K and its store of C, now functions of a piece of a tile, are
//   called per piece instead of once per block; one block per SM. The tiles
//   that do not make full waves, and one full wave more (so that no tile is
//   cut among many blocks), are shared out by k-tile, unless the last wave is
//   within 1/16 of full; the others go whole, as in v9. The host decides how
//   many (V13::shared_tiles, labs/matmul/versions.h) and passes the count;
//   where it is none, the host launches v9's kernel instead of this one, as
//   this loop would do v9's work with a slower schedule. A split tile's
//   blocks write their sums to the workspace and count in on the tile's
//   counter; the last adds the sums in block order (the same result whichever
//   finishes last), stores the tile and resets the counter.
// Expected effect: where tiles fill the SMs unevenly (1024^3, 3072^3,
//   4096^3), faster than v9 by up to its last wave's idle share, less the
//   workspace traffic; v9's time where they divide evenly or nearly (2048^3).
// Preconditions: v9's, but grid == (G) with G at most the number of k-tiles
//   (so that every block has work), one block per SM; shared_tiles > 0, the
//   first tiles in row-major order, at most 2·G; `partial` holds 2·G·BM·BN
//   floats and `arrived` 2·G unsigned counters, zero before the first launch
//   (the last block of each tile resets its counter).
#pragma once

#include "kernels/matmul/09_pipelined.cuh"

namespace warplab::matmul {

// The block whose share of the `total` k-tiles holds k-tile `it` (shares are
// [b·total/G, (b+1)·total/G)).
__device__ inline unsigned share_owner(unsigned long long it, unsigned long long total, unsigned G)
{
    return static_cast<unsigned>(((it + 1) * G - 1) / total);
}

// A split tile's piece: this lane's TM×TN sums of `slot` (block b's first or
// last piece: 2b or 2b + 1), as TM·TN/4 float4 at a stride of THREADS, so
// that a warp's accesses are whole 128-byte lines.
template <unsigned THREADS, unsigned TM, unsigned TN>
__device__ float4* piece_sums(float* partial, unsigned slot)
{
    const unsigned t = threadIdx.y * 32 + threadIdx.x;
    return reinterpret_cast<float4*>(partial) + std::size_t(slot) * (TM * TN / 4) * THREADS + t;
}

// The lane's results in groups of four: group e is row e / (TN / 4), columns
// 4·(e % (TN / 4)) … + 3.
template <unsigned TM, unsigned TN> __device__ __forceinline__ float4 group(const float (&acc)[TM][TN], unsigned e)
{
    const float* r = &acc[e / (TN / 4)][e % (TN / 4) * 4];
    return make_float4(r[0], r[1], r[2], r[3]);
}
template <unsigned TM, unsigned TN> __device__ __forceinline__ void set_group(float (&acc)[TM][TN], unsigned e, float4 v)
{
    float* r = &acc[e / (TN / 4)][e % (TN / 4) * 4];
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
}

template <unsigned BM, unsigned BN, unsigned BK, unsigned WM, unsigned WN, unsigned TM, unsigned TN, unsigned STAGES,
          unsigned MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    matmul_stream_k(const float* __restrict__ A, const float* __restrict__ B, float* C, unsigned M, unsigned N,
                    unsigned K, float* partial, unsigned* arrived, unsigned shared_tiles)
{
    constexpr unsigned THREADS = (BM / WM) * (BN / WN) * 32;
    __shared__ unsigned is_last[1];
    const unsigned G = gridDim.x, b = blockIdx.x;
    const unsigned tiles_n = (N + BN - 1) / BN, tiles = tiles_n * ((M + BM - 1) / BM), depth = (K + BK - 1) / BK;
    const unsigned long long total = 1ull * shared_tiles * depth;

    // v9's fast path, for a piece of `count` k-tiles of the tile at (bm, bn).
    auto multiply = [&](unsigned bm, unsigned bn, unsigned first, unsigned count, float (&acc)[TM][TN]) {
        __syncthreads();  // every warp has read the ring's last stage of the piece before
        const bool whole = bm + BM <= M && bn + BN <= N && K % BK == 0 && count >= STAGES && N % 4 == 0;
        if (!whole)
            multiply_block_tile<BM, BN, BK, WM, WN, TM, TN, STAGES, false>(A, B, M, N, K, bm, bn, first, count, acc);
        else
            multiply_block_tile<BM, BN, BK, WM, WN, TM, TN, STAGES, true>(A, B, M, N, K, bm, bn, first, count, acc);
    };

    // 1. This block's share of the split tiles' k-tiles, piece by piece.
    for (unsigned long long it = total * b / G, end = total * (b + 1) / G; it < end;) {
        const unsigned tile = static_cast<unsigned>(it / depth), first = static_cast<unsigned>(it % depth);
        const unsigned long long tile_end = 1ull * (tile + 1) * depth;
        const unsigned count = static_cast<unsigned>((end < tile_end ? end : tile_end) - it);
        const unsigned bm = tile / tiles_n * BM, bn = tile % tiles_n * BN;
        float acc[TM][TN] = {};
        multiply(bm, bn, first, count, acc);
        it += count;
        if (count == depth) {  // the whole tile is this block's
            store_block_tile<BN, WM, WN, TM, TN>(C, M, N, bm, bn, acc);
            continue;
        }
        // 2. A split tile: leave the sums, count in; the last block adds them all.
        float4* mine = piece_sums<THREADS, TM, TN>(partial, 2 * b + (first == 0));
#pragma unroll
        for (unsigned e = 0; e < TM * TN / 4; ++e) mine[e * THREADS] = group(acc, e);
        const unsigned owner_first = share_owner(1ull * tile * depth, total, G);
        const unsigned owners = share_owner(1ull * (tile + 1) * depth - 1, total, G) - owner_first + 1;
        __threadfence();  // the sums are visible before the count says so
        __syncthreads();
        if (threadIdx.x == 0 && threadIdx.y == 0) is_last[0] = atomicAdd(&arrived[tile], 1u) == owners - 1;
        __syncthreads();
        if (!is_last[0]) continue;
        __threadfence();
        // In block order, whichever block came last: the first owner's piece
        // starts the tile (its last piece, slot 2b + 1), every later owner's
        // starts inside it (its first piece, slot 2b).
        for (unsigned o = 0; o < owners; ++o) {
            const float4* piece = piece_sums<THREADS, TM, TN>(partial, 2 * (owner_first + o) + (o == 0));
#pragma unroll
            for (unsigned e = 0; e < TM * TN / 4; ++e) {
                const float4 v = piece[e * THREADS], s = o == 0 ? make_float4(0.f, 0.f, 0.f, 0.f) : group(acc, e);
                set_group(acc, e, make_float4(s.x + v.x, s.y + v.y, s.z + v.z, s.w + v.w));
            }
        }
        store_block_tile<BN, WM, WN, TM, TN>(C, M, N, bm, bn, acc);
        if (threadIdx.x == 0 && threadIdx.y == 0) arrived[tile] = 0u;  // for the next launch
    }

    // 3. The tiles that make full waves: whole, b, b + G, … after the split ones.
    for (unsigned tile = shared_tiles + b; tile < tiles; tile += G) {
        const unsigned bm = tile / tiles_n * BM, bn = tile % tiles_n * BN;
        float acc[TM][TN] = {};
        multiply(bm, bn, 0, depth, acc);
        store_block_tile<BN, WM, WN, TM, TN>(C, M, N, bm, bn, acc);
    }
}

}  // namespace warplab::matmul
