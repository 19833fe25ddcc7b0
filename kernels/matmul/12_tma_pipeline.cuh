// Matmul v12: feed the tensor cores. The bulk tensor copy engine (TMA)
// fills a ring of shared-memory stages; one warpgroup only issues copies,
// two only multiply.
//
// Idea: v11's warpgroup waited for its own wgmma after every tile, and every
//   thread spent instructions on copies. Here the work is split by warps, as
//   in the Hopper GEMMs NVIDIA describes (CUTLASS's "warp-specialized"
//   kernels): warpgroup 0 is the producer; one of its threads asks the copy
//   engine for whole tiles (cp.async.bulk.tensor, one instruction per box,
//   addressed by a tensor map the host makes) into a ring of STAGES stages.
//   Each stage has two mbarriers: "full" completes when the copy engine has
//   written the stage's bytes, "empty" when both consumers are done with it.
//   Warpgroups 1 and 2 are the consumers: each owns 64 columns of the
//   block's 256×128 tile of C, waits for a full stage, issues its wgmma for
//   the whole tile, waits for them and hands the stage back; while one
//   consumer reads its next fragments the other's wgmma keep the tensor
//   cores busy, and the producer keeps STAGES tiles coming. setmaxnreg moves registers from the
//   producer (which needs few) to the consumers (128 accumulators each).
//   TF32 wgmma reads a shared-memory operand only K-major. A (M×K,
//   row-major) is; B is not. As in v11 the kernel computes C^T = B^T·A^T:
//   A's tile is the shared-memory operand, B^T the register operand, which
//   the lanes read from B's tile as it lies (k rows of n); B is never
//   transposed in device memory. Which column of C a fragment row stands
//   for is free, so a lane's two rows (g and g + 8) are two adjacent
//   columns: one 8-byte read gives both, and across a half-warp the
//   copy engine's swizzle spreads the reads over all 32 banks.
// Changed from v11: a 384-thread block (a producer warpgroup and two
//   consumer warpgroups) owns a 256×128 tile of C; tiles come by TMA with
//   the 128-byte swizzle into 4 stages of 48 KB (dynamic shared memory);
//   m64n256k8 with A's tile by descriptor, B^T's fragments in registers;
//   blocks are ordered in groups of 8 block-rows, so that blocks running at
//   the same time share tiles of A and B in L2; rows of A (B) are padded when
//   K (N) is not a multiple of 4, as a tensor map's row stride must be a
//   multiple of 16 bytes; where the tiles of C number under half the SMs,
//   K is split among that many blocks per tile, each adding its sums into C
//   (atomically, in no fixed order).
// Expected effect: faster than v11 at every size, most at large sizes, and
//   near cuBLAS TF32 there; the same TF32 error.
// Needs the sm_90a target (wgmma, setmaxnreg); elsewhere (the emulator's
//   compute_90 PTX) the kernel does nothing. Runs only on a GPU.
// Preconditions: blockDim == 384; grid == (ceil(N / 128), ceil(M / 256),
//   pieces of K); C zeroed first where K is split;
//   dynamic shared memory STAGES × 48 KB + 1 KB; tensor maps of A (K × M,
//   K padded to a multiple of 4, boxes of 32 × 256 floats) and B (N × K, N
//   padded to a multiple of 4, boxes of 32 × 32 floats), both with the
//   128-byte swizzle; C 8-byte aligned.
#pragma once
#include <cuda.h>  // CUtensorMap

#include "kernels/matmul/11_wgmma.cuh"  // shared_address, tile_descriptor, the wgmma fences

namespace warplab::matmul {

__device__ inline void barrier_init(unsigned long long* bar, unsigned arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals));
}
// The producer's arrival: the stage will hold `bytes` once the copies land.
__device__ inline void barrier_expect_bytes(unsigned long long* bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes) : "memory");
}
__device__ inline void barrier_arrive(unsigned long long* bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}
// Waits until the barrier's phase `parity` has completed.
__device__ inline void barrier_wait(unsigned long long* bar, unsigned parity)
{
    asm volatile(
        "{\n.reg .pred done;\nwait_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra wait_%=;\n}\n" ::"r"(shared_address(bar)),
        "r"(parity)
        : "memory");
}
// One box of a 2D tensor into shared memory, counted on `bar` as it lands.
__device__ inline void copy_tile(void* dst, const CUtensorMap* map, unsigned long long* bar, unsigned x, unsigned y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::
                     "r"(shared_address(dst)),
                 "l"(map), "r"(shared_address(bar)), "r"(x), "r"(y)
                 : "memory");
}

// D (64×256, registers) += A (64×8, registers) · B (8×256, shared memory,
// by descriptor: K-major, 128-byte swizzle).
__device__ inline void wgmma_m64n256k8_tf32(float (&d)[128], const unsigned (&a)[4], unsigned long long b_desc)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "{%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc));
}

// Block (bx, by) of the grid, visited in groups of GROUP block-rows, column by
// column: the blocks resident together read few distinct tiles of A and Bt.
__device__ inline uint2 grouped_block(unsigned group)
{
    const unsigned id = blockIdx.y * gridDim.x + blockIdx.x, per_group = group * gridDim.x;
    const unsigned first = id / per_group * group, rows = min(group, gridDim.y - first);
    return make_uint2((id % per_group) / rows, first + (id % per_group) % rows);
}

template <unsigned BM, unsigned STAGES, unsigned GROUP>
__global__ void __launch_bounds__(384, 1)
    matmul_tma_pipeline(const __grid_constant__ CUtensorMap A, const __grid_constant__ CUtensorMap B, float* C,
                        unsigned M, unsigned N, unsigned K)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr unsigned BN = 128, BK = 32;  // BK: one 128-byte swizzle row of floats
    constexpr unsigned A_BYTES = BM * BK * 4, B_BOX = 32, B_BOX_BYTES = B_BOX * BK * 4;
    constexpr unsigned STAGE_BYTES = A_BYTES + BN * BK * 4;
    static_assert(BM == 256, "one m64n256k8 per consumer and 8 k");
    extern __shared__ unsigned char dynamic_shared[];
    // The swizzle repeats every 1024 bytes: stages start on such a boundary.
    unsigned char* stages = dynamic_shared + (1024 - shared_address(dynamic_shared) % 1024) % 1024;
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
    const uint2 block = grouped_block(GROUP);
    const unsigned bm = block.y * BM, bn = block.x * BN;
    // Split K (gridDim.z > 1): this block's piece is k-tiles first ... first + tiles - 1.
    const unsigned all_tiles = (K + BK - 1) / BK, per_piece = (all_tiles + gridDim.z - 1) / gridDim.z;
    const unsigned first = min(all_tiles, blockIdx.z * per_piece), tiles = min(per_piece, all_tiles - first);
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            barrier_init(&full[s], 1);   // the producer's arrival (and the copies' bytes)
            barrier_init(&empty[s], 2);  // one arrival per consumer
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (warpgroup == 0) {  // the producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (t == 0)
            for (unsigned tile = 0; tile < tiles; ++tile) {
                const unsigned s = tile % STAGES;
                if (tile >= STAGES) barrier_wait(&empty[s], (tile / STAGES - 1) % 2);  // its last use is over
                barrier_expect_bytes(&full[s], STAGE_BYTES);
                unsigned char* stage = stages + s * STAGE_BYTES;
                const unsigned k0 = (first + tile) * BK;
                copy_tile(stage, &A, &full[s], k0, bm);
                for (unsigned box = 0; box < BN / B_BOX; ++box)
                    copy_tile(stage + A_BYTES + box * B_BOX_BYTES, &B, &full[s], bn + box * B_BOX, k0);
            }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const unsigned consumer = warpgroup - 1, warp = t / 32 % 4, g = t % 32 / 4, tig = t % 4;
    // This lane's fragment rows g and g + 8 are C's columns n and n + 1 of
    // the block's tile, n = 32·box + 4·chunk + 2·(g % 2): B's 32-column box
    // (two warps a box) and 16-byte chunk, chosen so that the 16 lanes of a
    // half-warp read 16 different (chunk XOR k % 8, half-chunk) places.
    const unsigned box = consumer * 2 + warp / 2, chunk = 4 * (g / 2 % 2) + 2 * (warp % 2) + g / 4;
    const unsigned n = box * B_BOX + 4 * chunk + 2 * (g % 2);
    // Byte offsets in a stage's B region of (k = tig, n) and (k = tig + 4, n),
    // the 128-byte swizzle applied (chunk XOR k % 8); + 128·k0 for k-step k0.
    const unsigned b_low = A_BYTES + box * B_BOX_BYTES + tig * 128 + (chunk ^ tig) * 16 + 8 * (g % 2);
    const unsigned b_high = A_BYTES + box * B_BOX_BYTES + (tig + 4) * 128 + (chunk ^ (tig + 4)) * 16 + 8 * (g % 2);
    float acc[BM / 2];
    #pragma unroll
    for (unsigned i = 0; i < BM / 2; ++i) acc[i] = 0.0f;
    // Per tile: wait for its stage, read B^T's fragments, multiply, wait for
    // the group and hand the stage back. The wait is whole (wait_group 0):
    // the next tile's fragments overwrite the registers this group reads, and
    // ptxas would serialize the wgmma anyway (C7513) if they were written with
    // a group in flight. The other consumer's wgmma keep the tensor cores busy
    // meanwhile.
    for (unsigned tile = 0; tile < tiles; ++tile) {
        const unsigned s = tile % STAGES;
        barrier_wait(&full[s], tile / STAGES % 2);
        const unsigned char* stage = stages + s * STAGE_BYTES;
        unsigned frag[BK / 8][4];
        #pragma unroll
        for (unsigned k = 0; k < BK / 8; ++k) {
            const float2 low = *reinterpret_cast<const float2*>(stage + b_low + k * 8 * 128);
            const float2 high = *reinterpret_cast<const float2*>(stage + b_high + k * 8 * 128);
            frag[k][0] = __float_as_uint(low.x), frag[k][1] = __float_as_uint(low.y);
            frag[k][2] = __float_as_uint(high.x), frag[k][3] = __float_as_uint(high.y);
        }
        const unsigned a = shared_address(stage);
        wgmma_fence();
        #pragma unroll
        for (unsigned k = 0; k < BK / 8; ++k) wgmma_m64n256k8_tf32(acc, frag[k], tile_descriptor<BK * 4>(a + k * 8 * 4));
        wgmma_commit();
        wgmma_wait_all();
        if (t == 0) barrier_arrive(&empty[s]);
    }

    // acc holds C^T's rows g and g + 8 (C's columns n and n + 1) at C^T's
    // columns (C's rows) 8j + 2·tig and + 1: acc[4j + e] is C[8j + 2·tig +
    // e % 2][n + e / 2], so C's row r gets the pair (acc[4j + r], acc[4j + r + 2]).
    // With K split, each piece adds its sums into C, which the launch zeroed.
    const unsigned col = bn + n;
    const bool add = gridDim.z > 1;
    #pragma unroll
    for (unsigned j = 0; j < BM / 8; ++j) {
        #pragma unroll
        for (unsigned h = 0; h < 2; ++h) {
            const unsigned r = bm + j * 8 + 2 * tig + h;
            const float x = acc[4 * j + h], y = acc[4 * j + h + 2];
            if (r >= M) continue;
            float* c = C + static_cast<size_t>(r) * N + col;
            if (N % 2 == 0 && col + 1 < N) {
                if (add) atomicAdd(reinterpret_cast<float2*>(c), make_float2(x, y));
                else *reinterpret_cast<float2*>(c) = make_float2(x, y);
            } else {
                if (col < N) add ? (void)atomicAdd(c, x) : (void)(*c = x);
                if (col + 1 < N) add ? (void)atomicAdd(c + 1, y) : (void)(c[1] = y);
            }
        }
    }
#else
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
#endif
}

// The launch's first pass where a tensor map needs it: rows padded to a
// multiple of 4 floats, out[r][c] = in[r][c] for c < cols, 0 up to padded
// (a tensor map's row stride is a multiple of 16 bytes). A template, so
// that only the GPU build that launches it compiles it: the lab's PTX holds
// the versions' kernels and nothing else.
template <typename T>
__global__ void pad_rows(const T* __restrict__ in, T* out, unsigned rows, unsigned cols, unsigned padded)
{
    const unsigned r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
    for (unsigned i = threadIdx.y; i < 32; i += blockDim.y) {
        const unsigned r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < padded) out[static_cast<size_t>(r) * padded + c] = c < cols ? in[static_cast<size_t>(r) * cols + c] : T(0);
    }
}

}  // namespace warplab::matmul
