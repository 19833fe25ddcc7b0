// Matmul v15: two blocks share one tile of B: a cluster of two, each block
// copying half of B's tile into both blocks' shared memory.
//
// Idea: in v14 every block fetched its own 48 KB a k-tile (16 KB of A, 32 KB
//   of B) from L2, and the blocks on the same columns of C fetched the same
//   tiles of B. v14's multiply already takes the clocks the tensor cores
//   need; what limits it is the clock, which the GPU's power limit holds
//   down while every SM multiplies. Moving bytes costs power too. Hopper
//   groups blocks into clusters whose members run at the same time on nearby
//   SMs and can reach each other's shared memory; the copy engine can then
//   write one box into several of them at once (multicast: one read from
//   L2, several destinations). Here a cluster's two blocks own two
//   vertically adjacent 128×256 tiles of C, so they need the same tile of B
//   at every k-tile: each block copies two of its four 64-column boxes, into
//   both blocks. Each block now reads 32 KB a k-tile from L2 instead of 48.
// Changed from v14: __cluster_dims__(2, 1, 1); the block walks 256×256
//   pairs of tiles (rank 0 the upper tile, rank 1 the lower); B's boxes by
//   multicast, two from each block; a stage is free again only when the
//   consumers of both blocks are done with it (its "empty" barrier counts
//   four arrivals, two of them from the other block, through its shared
//   memory's cluster address); the barriers are made before either block
//   uses them (a cluster barrier instead of __syncthreads), and a producer
//   waits, before its block ends, for the last arrivals the other block
//   sends it.
// Expected effect: a third less traffic from L2 for the same work, so a
//   little more clock under the same power: a little faster than v14 at
//   large sizes, most where the blocks walk many tiles (each waits for the
//   slower of its pair at every stage); v14's results bit for bit.
// Needs the sm_90a target (wgmma, setmaxnreg, multicast); elsewhere (the
//   emulator's compute_90 PTX) the kernel does nothing. Runs only on a GPU.
// Preconditions: v14's, and the grid an even number of blocks, at most
//   twice the pairs of tiles (ceil(M / 256) · ceil(N / 256)).
#pragma once
#include <cuda.h>  // CUtensorMap

#include "kernels/matmul/14_bf16_wgmma.cuh"  // the wgmma, the stores of C, the tile order

namespace warplab::matmul {

// This block's place in its cluster (0 or 1 for a pair).
__device__ inline unsigned cluster_rank()
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

// Every thread of every block of the cluster arrives and waits: what each
// block wrote before (its barriers' initialisation) is then seen by all.
__device__ inline void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// An arrival on the barrier at `bar`'s place in block `rank` of the cluster
// (this block's own where rank is its own). It releases at the block's scope,
// the default: what it orders is that this warpgroup's wgmma have read the
// stage, which wgmma.wait_group already ensured. Releasing at the cluster's
// scope (.release.cluster) made every arrival wait for the thread's memory
// operations in flight, and v15 ran at 0.42 times cuBLAS on the H100.
__device__ inline void barrier_arrive_in(unsigned long long* bar, unsigned rank)
{
    asm volatile(
        "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(shared_address(bar)),
        "r"(rank)
        : "memory");
}

// One box of a 2D tensor into the shared memory of every block in `blocks`
// (a bit per cluster rank), at dst's offset in each; each destination's
// barrier at bar's offset counts the bytes that land there.
__device__ inline void copy_tile_to_cluster(void* dst, const CUtensorMap* map, unsigned long long* bar, unsigned x, unsigned y,
                                            unsigned short blocks)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], "
        "%5;" ::"r"(shared_address(dst)),
        "l"(map), "r"(shared_address(bar)), "r"(x), "r"(y), "h"(blocks)
        : "memory");
}

template <unsigned STAGES, unsigned GROUP>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
    matmul_bf16_multicast(const __grid_constant__ CUtensorMap A, const __grid_constant__ CUtensorMap B,
                          const __grid_constant__ CUtensorMap C_map, float* C, unsigned M, unsigned N, unsigned K)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr unsigned BM = 128, BN = 256, BK = 64;  // BK: one 128-byte swizzle row of bf16
    constexpr unsigned A_BYTES = BM * BK * 2, B_BOX = 64, B_BOX_BYTES = B_BOX * BK * 2;
    constexpr unsigned STAGE_BYTES = A_BYTES + BN * BK * 2;
    constexpr unsigned PAIR = 2, BOXES_EACH = BN / B_BOX / PAIR;  // B's 4 boxes: 2 copied by each block
    extern __shared__ unsigned char dynamic_shared[];
    // The swizzle repeats every 1024 bytes: stages start on such a boundary.
    unsigned char* stages = dynamic_shared + (1024 - shared_address(dynamic_shared) % 1024) % 1024;
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
    const unsigned rank = cluster_rank(), pair0 = blockIdx.x / PAIR, pair_step = gridDim.x / PAIR;
    const unsigned pair_rows = (M + PAIR * BM - 1) / (PAIR * BM), tile_cols = (N + BN - 1) / BN, pairs = pair_rows * tile_cols;
    const unsigned k_tiles = (K + BK - 1) / BK;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            barrier_init(&full[s], 1);            // the producer's arrival (and the copies' bytes, half from the other block)
            barrier_init(&empty[s], 2 * PAIR);  // one arrival per consumer, of both blocks
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster_sync();  // the other block's copies and arrivals reach this block's barriers

    // Both sides count k-tiles across all of the block's tiles: k-tile `it`
    // uses stage it % STAGES, in that stage's use number it / STAGES. The two
    // blocks walk the same pairs, so their counts agree.
    if (warpgroup == 0) {  // the producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (t != 0) return;
        unsigned it = 0;
        for (unsigned pair = pair0; pair < pairs; pair += pair_step) {
            const uint2 at = grouped_tile(pair, pair_rows, tile_cols, GROUP);
            for (unsigned kt = 0; kt < k_tiles; ++kt, ++it) {
                const unsigned s = it % STAGES;
                if (it >= STAGES) barrier_wait(&empty[s], (it / STAGES - 1) % 2);  // both blocks are done with its last use
                barrier_expect_bytes(&full[s], STAGE_BYTES);
                unsigned char* stage = stages + s * STAGE_BYTES;
                copy_tile(stage, &A, &full[s], kt * BK, (PAIR * at.x + rank) * BM);
                for (unsigned box = rank * BOXES_EACH; box < (rank + 1) * BOXES_EACH; ++box)
                    copy_tile_to_cluster(stage + A_BYTES + box * B_BOX_BYTES, &B, &full[s], at.y * BN + box * B_BOX, kt * BK, 0b11);
            }
        }
        // The other block's consumers still arrive on this block's barriers
        // after their last k-tiles: wait for every stage's last use to be
        // over, so that this block's shared memory outlives those arrivals.
        for (unsigned s = 0; s < STAGES; ++s, ++it)
            if (it >= STAGES) barrier_wait(&empty[it % STAGES], (it / STAGES - 1) % 2);
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const unsigned consumer = warpgroup - 1;
    const unsigned buffer = shared_address(stages + STAGES * STAGE_BYTES) + consumer * 16384;
    float acc[BN / 2];
    // The last tile's columns 128..255, stored during this tile's first
    // k-tiles (one 32-column box after each of the first four groups is
    // issued), while the tensor cores multiply.
    float held[BN / 4];
    bool holding = false;
    unsigned held_row0 = 0, held_col0 = 0;
    unsigned it = 0;
    for (unsigned pair = pair0; pair < pairs; pair += pair_step) {
        const uint2 at = grouped_tile(pair, pair_rows, tile_cols, GROUP);
        #pragma unroll
        for (unsigned i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
        // Per k-tile: wait for its stage, issue its 4 wgmma (k = 16 each) as
        // one group, then wait until at most this group is in flight and hand
        // the previous k-tile's stage back to both blocks' producers.
        for (unsigned kt = 0; kt < k_tiles; ++kt, ++it) {
            const unsigned s = it % STAGES;
            barrier_wait(&full[s], it / STAGES % 2);
            const unsigned a = shared_address(stages + s * STAGE_BYTES) + consumer * (BM / 2) * BK * 2, b = shared_address(stages + s * STAGE_BYTES) + A_BYTES;
            wgmma_fence();
            #pragma unroll
            for (unsigned k = 0; k < BK / 16; ++k)
                // A: +32 bytes per 16 k along its swizzled rows; B: two 8-k groups (2 × 1024 bytes) per 16 k.
                wgmma_m64n256k16_bf16(acc, swizzled_descriptor(a + k * 32, 1024, 0), swizzled_descriptor(b + k * 2048, 1024, B_BOX_BYTES));
            wgmma_commit();
            if (holding) {
                if (kt == 0) store_held_box<0>(held, &C_map, buffer, held_row0, held_col0, t, consumer);
                if (kt == 1) store_held_box<1>(held, &C_map, buffer, held_row0, held_col0, t, consumer);
                if (kt == 2) store_held_box<2>(held, &C_map, buffer, held_row0, held_col0, t, consumer);
                if (kt == 3) {
                    store_held_box<3>(held, &C_map, buffer, held_row0, held_col0, t, consumer);
                    holding = false;
                }
            }
            wgmma_wait<1>();
            if (kt > 0 && t == 0)
                for (unsigned r = 0; r < PAIR; ++r) barrier_arrive_in(&empty[(it - 1) % STAGES], r);
        }
        wgmma_wait<0>();
        if (t == 0)
            for (unsigned r = 0; r < PAIR; ++r) barrier_arrive_in(&empty[(it - 1) % STAGES], r);
        // Fewer than four k-tiles: the held boxes not yet stored.
        if (holding) store_held_boxes(held, k_tiles, &C_map, buffer, held_row0, held_col0, t, consumer);

        const unsigned row0 = (PAIR * at.x + rank) * BM + consumer * (BM / 2), col0 = at.y * BN;
        if (N % 4 == 0) {
            // Columns 0..127 now, from the accumulators; 128..255 held.
            store_box<0>(acc, &C_map, buffer, row0, col0, t, consumer);
            store_box<4>(acc, &C_map, buffer + 8192, row0, col0 + 32, t, consumer);
            store_box<8>(acc, &C_map, buffer, row0, col0 + 64, t, consumer);
            store_box<12>(acc, &C_map, buffer + 8192, row0, col0 + 96, t, consumer);
            #pragma unroll
            for (unsigned i = 0; i < BN / 4; ++i) held[i] = acc[BN / 4 + i];
            holding = true;
            held_row0 = row0;
            held_col0 = col0;
        } else {
            store_from_registers(acc, C, M, N, row0, col0, t);
        }
    }
    if (holding) store_held_boxes(held, 0, &C_map, buffer, held_row0, held_col0, t, consumer);
    // Shared memory must outlive the copy engine's last reads of it.
    if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
    (void)A, (void)B, (void)C_map, (void)C, (void)M, (void)N, (void)K;
#endif
}

}  // namespace warplab::matmul
