// Matmul v11: warpgroup tensor-core instructions (wgmma), fed by cp.async.
//
// Idea: on Hopper the tensor cores take their work from a warpgroup (4 warps,
//   128 threads) at a time. One wgmma.mma_async multiplies a 64×8 piece of
//   one operand, held in the warpgroup's registers, by an 8×BM piece of the
//   other, which the tensor cores read straight from shared memory through a
//   matrix descriptor (address, stride of 8-row groups, swizzle mode), and
//   adds the 64×BM product to accumulators in registers: 64·BM·8 multiply-adds
//   per instruction, against 16·8·8 for v10's mma.sync. It runs asynchronously:
//   the warpgroup issues BK/8 of them, commits them as a group and waits.
//   TF32 wgmma reads both operands k-contiguous ("K-major"). A (M×K,
//   row-major) is; B (K×N, row-major) is not, so v11 computes C^T = B^T·A^T:
//   B^T is the register operand (the lanes read its fragments from shared
//   memory as v10 read B's), A's tile is the descriptor operand.
// Changed from v10: mma.sync becomes wgmma; the block is one warpgroup owning a
//   BM×BN = 128×64 tile of C (one m64n128k8 per 8 k), BK = 32; the tiles
//   arrive by cp.async (global to shared memory without registers, with
//   zeros outside A and B) instead of loads and stores through registers,
//   still two stages: tile k + 1 is on its way while the tensor cores work
//   on tile k. A's tile is stored in the layout the descriptor names, the
//   128-byte swizzle (row r's 16-byte chunk c at c ^ (r mod 8)); B's rows
//   have their 16-byte chunks XOR-ed with 2·(k mod 4), so that the fragment
//   reads (k = tig, n = group) hit 32 different banks. Same TF32 arithmetic.
// Expected effect: faster than v10 at every size, with the same error. Still
//   short of cuBLAS in TF32: each warpgroup waits for its own wgmma at the
//   end of every tile, and every thread spends instructions issuing copies;
//   cuBLAS keeps several wgmma groups in flight, fed by the bulk tensor copy
//   engine from warps that do nothing else.
// Needs the sm_90a target (wgmma exists on the H100 and H200 only); built for
//   anything else (the emulator's compute_90 PTX among them) the kernel does
//   nothing, and a check of C then fails. Runs only on a GPU.
// Preconditions: blockDim == (32, 4·BN/64); grid == (ceil(N / BN),
//   ceil(M / BM)); A, B, C 16-byte aligned; M·K, K·N and M·N below 2^32.
#pragma once
#include "kernels/matmul/09_pipelined.cuh"  // shared_address, copy_async

namespace warplab::matmul {

// What ordinary (cp.async) writes put in shared memory becomes visible to the tensor cores.
__device__ inline void fence_shared_for_tensor_cores() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

// The byte offset of a 16-byte chunk in a K-major tile stored in the
// descriptor's swizzled layout: rows of `row_bytes` (32, 64 or 128), the
// chunk bits [4, 4 + log2(row_bytes / 16)) XORed with address bits [7, ...)
// (CUTLASS's Swizzle<b, 4, 3>). The tile must start on a 1024-byte boundary.
template <unsigned row_bytes> __device__ inline unsigned swizzled(unsigned offset)
{
    return offset ^ (((offset >> 7) & (row_bytes / 16 - 1)) << 4);
}

// A shared-memory matrix descriptor of a K-major tile in that layout: 8-row
// groups 8·row_bytes apart (stride byte offset), swizzle mode in bits 62-63.
template <unsigned row_bytes> __device__ inline unsigned long long tile_descriptor(unsigned address)
{
    constexpr unsigned long long mode = row_bytes == 128 ? 1 : row_bytes == 64 ? 2 : 3;
    return (address & 0x3FFFF) >> 4 | 1ull << 16 | (8ull * row_bytes >> 4) << 32 | mode << 62;
}
// D (64×128, registers) += A (64×8, registers) · B (8×128, shared memory, by descriptor).
__device__ inline void wgmma_m64n128k8_tf32(float (&d)[64], const unsigned (&a)[4], unsigned long long b_desc)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "{%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc));
}
template <unsigned BM, unsigned BN, unsigned BK, unsigned STAGES>
__global__ void __launch_bounds__(BN / 64 * 128, 1)
    matmul_wgmma(const float* __restrict__ A, const float* __restrict__ B, float* C, unsigned M, unsigned N, unsigned K)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr unsigned THREADS = BN / 64 * 128;
    constexpr unsigned A_TILE = BM * BK, B_TILE = BK * BN, STAGE = A_TILE + B_TILE;
    __shared__ __align__(1024) float smem[STAGES * STAGE];  // STAGES × (A's BM×BK tile, B's BK×BN tile)
    constexpr unsigned ROW_BYTES = BK * 4;  // one row of A's tile: the swizzle's width
    static_assert(BM == 128, "one m64n128k8 per 8 k");
    static_assert(BN % 64 == 0 && BK % 8 == 0 && (BK == 8 || BK == 16 || BK == 32), "whole warpgroups, swizzle widths 32-128 bytes");
    static_assert(BN >= 32 && (A_TILE * 4) % 1024 == 0 && (STAGE * 4) % 1024 == 0, "tiles on 1024-byte boundaries");
    static_assert(STAGES >= 2, "at least one tile in flight");

    const unsigned t = threadIdx.y * 32 + threadIdx.x;
    const unsigned warpgroup = threadIdx.y / 4, warp = threadIdx.y % 4;  // warp in its warpgroup
    const unsigned group = threadIdx.x / 4, tig = threadIdx.x % 4;       // the lane's place in a fragment
    const unsigned bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const bool whole_chunks = K % 4 == 0 && N % 4 == 0;  // rows of A and B in aligned 16-byte chunks

    // Tile `k0` of A and B into stage s: 16-byte chunks, or single floats
    // where rows do not split into aligned chunks; zeros outside A and B.
    auto load_tile = [&](unsigned s, unsigned k0) {
        const unsigned as = shared_address(smem + s * STAGE), bs = as + A_TILE * 4;
        for (unsigned i = t; i < A_TILE / 4; i += THREADS) {
            const unsigned r = i / (BK / 4), c = i % (BK / 4) * 4, row = bm + r, k = k0 + c;
            const unsigned dst = as + swizzled<ROW_BYTES>(r * ROW_BYTES + c * 4);
            if (whole_chunks) copy_async<16>(dst, A + (row < M && k < K ? row * K + k : 0), row < M && k < K);
            else
                for (unsigned e = 0; e < 4; ++e) copy_async<4>(dst + 4 * e, A + (row < M && k + e < K ? row * K + k + e : 0), row < M && k + e < K);
        }
        for (unsigned i = t; i < B_TILE / 4; i += THREADS) {
            const unsigned r = i / (BN / 4), c = i % (BN / 4) * 4, k = k0 + r, col = bn + c;
            const unsigned dst = bs + (r * BN + (c ^ (r % 4) * 8)) * 4;
            if (whole_chunks) copy_async<16>(dst, B + (k < K && col < N ? k * N + col : 0), k < K && col < N);
            else
                for (unsigned e = 0; e < 4; ++e) copy_async<4>(dst + 4 * e, B + (k < K && col + e < N ? k * N + col + e : 0), k < K && col + e < N);
        }
    };

    const unsigned tiles = (K + BK - 1) / BK;
    for (unsigned s = 0; s + 1 < STAGES; ++s) {
        if (s < tiles) load_tile(s, s * BK);
        copy_async_commit();  // one group per tile, empty or not: the wait below counts them
    }

    float acc[BM / 2] = {};
    const unsigned n0 = warpgroup * 64 + warp * 16 + group;  // this lane's fragment rows of B^T: n0, n0 + 8
    for (unsigned tile = 0; tile < tiles; ++tile) {
        const unsigned s = tile % STAGES;
        copy_async_wait<STAGES - 2>();  // this thread's copies of tile `tile` have landed
        fence_shared_for_tensor_cores();
        __syncthreads();                // ... and everyone's; tile - 1's wgmma are done everywhere
        const unsigned next = tile + STAGES - 1;
        if (next < tiles) load_tile(next % STAGES, next * BK);  // into tile - 1's stage
        copy_async_commit();

        // B^T's fragments (rows n, k = tig and tig + 4), from Bs[k][n] with
        // n's chunk swizzled by k % 4 = tig.
        const float* bs = smem + s * STAGE + A_TILE;
        unsigned frag[BK / 8][4];
        #pragma unroll
        for (unsigned k = 0; k < BK; k += 8) {
            frag[k / 8][0] = __float_as_uint(bs[(k + tig) * BN + (n0 ^ tig * 8)]);
            frag[k / 8][1] = __float_as_uint(bs[(k + tig) * BN + ((n0 + 8) ^ tig * 8)]);
            frag[k / 8][2] = __float_as_uint(bs[(k + tig + 4) * BN + (n0 ^ tig * 8)]);
            frag[k / 8][3] = __float_as_uint(bs[(k + tig + 4) * BN + ((n0 + 8) ^ tig * 8)]);
        }
        const unsigned as = shared_address(smem + s * STAGE);
        wgmma_fence();
        #pragma unroll
        for (unsigned k = 0; k < BK; k += 8) wgmma_m64n128k8_tf32(acc, frag[k / 8], tile_descriptor<ROW_BYTES>(as + k * 4));
        wgmma_commit();
        wgmma_wait_all();
    }

    // acc holds C^T's rows n0 and n0 + 8 (C's columns), at C^T columns
    // (C's rows) 8j + 2·tig and 8j + 2·tig + 1.
    const unsigned col = bn + n0;
    #pragma unroll
    for (unsigned j = 0; j < BM / 8; ++j) {
        const unsigned row = bm + j * 8 + 2 * tig;
        for (unsigned e = 0; e < 4; ++e) {
            const unsigned r = row + e % 2, c = col + e / 2 * 8;
            if (r < M && c < N) C[r * N + c] = acc[4 * j + e];
        }
    }
#else
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
#endif
}

}  // namespace warplab::matmul
