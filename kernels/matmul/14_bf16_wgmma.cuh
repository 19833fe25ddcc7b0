// Matmul v14: BF16 on the tensor cores, both operands by descriptor, in a
// persistent block per SM.
//
// Idea: v12 ran the tensor cores in TF32, where wgmma reads a shared-memory
//   operand only K-major, so B^T had to come through registers. In 16-bit
//   types wgmma reads either operand K-major or MN-major (the instruction's
//   transpose flags), so A's tile (K-major) and B's tile (N-major, as B lies
//   in memory) both go from the copy engine to the tensor cores untouched:
//   the consumers issue wgmma and nothing else. Each multiply-add reads two
//   2-byte inputs instead of two 4-byte ones, and the tensor cores' BF16 rate
//   is twice their TF32 rate. The sums stay FP32 (m64n256k16.f32.bf16.bf16).
//   The inputs are A and B rounded to bf16 (8 significant bits) before the
//   kernel runs, outside its timing, as cuBLAS's BF16 GEMM takes them.
//   One block per SM stays resident and walks the tiles of C (grouped by
//   16 block-rows for L2 reuse); its producer runs ahead into the next tile
//   while the consumers store the last one, so the ring is full when they
//   come back. C leaves through shared memory, 32 columns at a time, by the
//   copy engine, and a warp waits only until the engine has read them. Half
//   of a consumer's 64×256 sums leave at once; the other half waits in
//   registers beside the next tile's accumulators and leaves during that
//   tile's first four k-tiles, while the tensor cores multiply.
// Changed from v12: BF16 inputs (A and B as bf16, rows padded to 16 bytes),
//   FP32 accumulators; 128×256 tiles of C (two consumer warpgroups of
//   64×256), BK = 64 (one 128-byte swizzle row of bf16); B's tile arrives as
//   four 64×64 boxes and is read by a MN-major descriptor (8-k groups 1024
//   bytes apart, 64-column boxes 8 KB apart); C = A·B directly (no
//   transpose); a consumer's groups overlap (its stage of k-tile k goes
//   back once k + 1's group is issued and k's is done); persistent blocks
//   instead of one block per tile, as many as make the fewest waves; C
//   stored by the copy engine from shared memory, half of each tile during
//   the next one's multiply (from registers where C's rows are not whole 16
//   bytes, which a tensor map needs); no pieces of K.
// Expected effect: about twice v12's rate at large sizes, level with cuBLAS's
//   BF16 GEMM; an error of bf16's size (inputs rounded to 8 significant bits:
//   several times TF32's). Few tiles at small sizes (1024^3: 32 for 132
//   SMs), a partial last wave where they do not divide (3072^3: 288).
// Needs the sm_90a target (wgmma, setmaxnreg); elsewhere (the emulator's
//   compute_90 PTX) the kernel does nothing. Runs only on a GPU.
// Preconditions: blockDim == 384; grid <= the tiles of C (ceil(M / 128) ·
//   ceil(N / 256)); dynamic shared memory STAGES × 48 KB + 32 KB + 1 KB;
//   tensor maps of A (bf16, K × M, boxes of 64 × 128) and B (bf16, N × K,
//   boxes of 64 × 64), both with the 128-byte swizzle; where N % 4 == 0, a
//   tensor map of C (floats, N × M, boxes of 32 × 64, 128-byte swizzle),
//   else C 8-byte aligned and the map unused.
#pragma once
#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>

#include "kernels/matmul/12_tma_pipeline.cuh"  // barriers, copy_tile, setmaxnreg's split, shared_address

namespace warplab::matmul {

// A descriptor of a tile in the 128-byte swizzle, 8-row groups `group_bytes`
// apart (stride byte offset) and, for an MN-major operand, 64-element boxes
// `box_bytes` apart along M or N (leading byte offset; unused K-major).
__device__ inline unsigned long long swizzled_descriptor(unsigned address, unsigned group_bytes, unsigned box_bytes)
{
    return (address & 0x3FFFF) >> 4 | (unsigned long long)(box_bytes >> 4) << 16 | (unsigned long long)(group_bytes >> 4) << 32 |
           1ull << 62;
}

// D (64×256, registers) += A (64×16, K-major) · B (16×256, N-major), both
// from shared memory by descriptor; bf16 inputs, FP32 sums.
__device__ inline void wgmma_m64n256k16_bf16(float (&d)[128], unsigned long long a_desc, unsigned long long b_desc)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 1;\n}\n"
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
        : "l"(a_desc), "l"(b_desc));
}

template <unsigned N> __device__ inline void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }

// The t-th tile of C (row, column of tiles), in groups of GROUP tile-rows
// walked column by column, so the blocks at work together share tiles of A
// and B in L2.
__device__ inline uint2 grouped_tile(unsigned t, unsigned tile_rows, unsigned tile_cols, unsigned group)
{
    const unsigned per_group = group * tile_cols, first = t / per_group * group, rows = min(group, tile_rows - first);
    return make_uint2(first + (t % per_group) % rows, (t % per_group) / rows);
}

// A consumer's 64 rows of C from its accumulators, row0 its first row of C
// and col0 its tile's first column: acc[4j + e] is C's row
// 16·warp + g + 8·(e / 2) of this consumer's 64, column 8j + 2·tig + e % 2
// of the tile's 256 (t = 32·warp + 4·g + tig). Stored from registers.
__device__ inline void store_from_registers(const float (&acc)[128], float* C, unsigned M, unsigned N, unsigned row0, unsigned col0, unsigned t)
{
    const unsigned warp = t / 32, g = t % 32 / 4, tig = t % 4;
    #pragma unroll
    for (unsigned j = 0; j < 32; ++j) {
        #pragma unroll
        for (unsigned h = 0; h < 2; ++h) {
            const unsigned r = row0 + 16 * warp + g + 8 * h, col = col0 + 8 * j + 2 * tig;
            const float x = acc[4 * j + 2 * h], y = acc[4 * j + 2 * h + 1];
            if (r >= M) continue;
            float* c = C + static_cast<size_t>(r) * N + col;
            if (N % 2 == 0 && col + 1 < N) {
                *reinterpret_cast<float2*>(c) = make_float2(x, y);
            } else {
                if (col < N) c[0] = x;
                if (col + 1 < N) c[1] = y;
            }
        }
    }
}

// Named barrier 1 + consumer, among that consumer's 128 threads. The ids are
// immediates: a register id would make the kernel reserve all 16 of a block's
// barriers, and the SM's share of them would then cap its blocks.
__device__ inline void consumer_barrier(unsigned consumer)
{
    if (consumer == 0)
        asm volatile("bar.sync 1, 128;" ::: "memory");
    else
        asm volatile("bar.sync 2, 128;" ::: "memory");
}

// One 64-row × 32-column box of a consumer's C through shared memory: the
// thread's 16 sums of it, src[4·(J + jj) + 2·h + e] for jj < 4, h, e < 2
// (acc's layout from column group J on), are written into `slot` (8 KB, in
// the 128-byte swizzle: 16-byte chunk c of row r at chunk c ^ (r % 8), so a
// warp's writes spread over all banks), and one thread hands it to the copy
// engine, which stores it while the warps go on. The box before this one
// used the other slot; the one before that, this slot, so a thread first
// waits until the engine has read all but the newest box. The copy engine
// clips rows and columns beyond C.
template <unsigned J, unsigned COUNT>
__device__ inline void store_box(const float (&src)[COUNT], const CUtensorMap* C, unsigned slot, unsigned row0, unsigned col, unsigned t,
                                 unsigned consumer)
{
    const unsigned warp = t / 32, g = t % 32 / 4, tig = t % 4;
    if (t == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    consumer_barrier(consumer);
    #pragma unroll
    for (unsigned jj = 0; jj < 4; ++jj) {
        #pragma unroll
        for (unsigned h = 0; h < 2; ++h) {
            const unsigned r = 16 * warp + g + 8 * h, chunk = (2 * jj + tig / 2) ^ (r % 8);
            asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(slot + r * 128 + chunk * 16 + 8 * (tig % 2)),
                         "f"(src[4 * (J + jj) + 2 * h]), "f"(src[4 * (J + jj) + 2 * h + 1])
                         : "memory");
        }
    }
    // The copy engine reads shared memory through the async proxy: make the
    // writes visible to it, then let one thread hand them over.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    consumer_barrier(consumer);
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(C), "r"(col), "r"(row0),
                     "r"(slot)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
}

// Box B (0..3) of the half of a tile's C that a consumer holds in `held`
// (columns 128 + 32·B .. 159 + 32·B of the tile), through its 16 KB buffer.
template <unsigned B>
__device__ inline void store_held_box(const float (&held)[64], const CUtensorMap* C, unsigned buffer, unsigned row0, unsigned col0,
                                      unsigned t, unsigned consumer)
{
    store_box<4 * B>(held, C, buffer + (B % 2) * 8192, row0, col0 + 128 + 32 * B, t, consumer);
}

// The held boxes from box `first` on.
__device__ inline void store_held_boxes(const float (&held)[64], unsigned first, const CUtensorMap* C, unsigned buffer, unsigned row0,
                                        unsigned col0, unsigned t, unsigned consumer)
{
    if (first == 0) store_held_box<0>(held, C, buffer, row0, col0, t, consumer);
    if (first <= 1) store_held_box<1>(held, C, buffer, row0, col0, t, consumer);
    if (first <= 2) store_held_box<2>(held, C, buffer, row0, col0, t, consumer);
    if (first <= 3) store_held_box<3>(held, C, buffer, row0, col0, t, consumer);
}

template <unsigned STAGES, unsigned GROUP>
__global__ void __launch_bounds__(384, 1)
    matmul_bf16_wgmma(const __grid_constant__ CUtensorMap A, const __grid_constant__ CUtensorMap B,
                      const __grid_constant__ CUtensorMap C_map, float* C, unsigned M, unsigned N, unsigned K)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr unsigned BM = 128, BN = 256, BK = 64;  // BK: one 128-byte swizzle row of bf16
    constexpr unsigned A_BYTES = BM * BK * 2, B_BOX = 64, B_BOX_BYTES = B_BOX * BK * 2;
    constexpr unsigned STAGE_BYTES = A_BYTES + BN * BK * 2;
    extern __shared__ unsigned char dynamic_shared[];
    // The swizzle repeats every 1024 bytes: stages start on such a boundary.
    unsigned char* stages = dynamic_shared + (1024 - shared_address(dynamic_shared) % 1024) % 1024;
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
    const unsigned tile_rows = (M + BM - 1) / BM, tile_cols = (N + BN - 1) / BN, tiles = tile_rows * tile_cols;
    const unsigned k_tiles = (K + BK - 1) / BK;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES; ++s) {
            barrier_init(&full[s], 1);   // the producer's arrival (and the copies' bytes)
            barrier_init(&empty[s], 2);  // one arrival per consumer
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    // Both sides count k-tiles across all of the block's tiles: k-tile `it`
    // uses stage it % STAGES, in that stage's use number it / STAGES.
    if (warpgroup == 0) {  // the producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (t != 0) return;
        unsigned it = 0;
        for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            const uint2 at = grouped_tile(tile, tile_rows, tile_cols, GROUP);
            for (unsigned kt = 0; kt < k_tiles; ++kt, ++it) {
                const unsigned s = it % STAGES;
                if (it >= STAGES) barrier_wait(&empty[s], (it / STAGES - 1) % 2);  // its last use is over
                barrier_expect_bytes(&full[s], STAGE_BYTES);
                unsigned char* stage = stages + s * STAGE_BYTES;
                copy_tile(stage, &A, &full[s], kt * BK, at.x * BM);
                for (unsigned box = 0; box < BN / B_BOX; ++box)
                    copy_tile(stage + A_BYTES + box * B_BOX_BYTES, &B, &full[s], at.y * BN + box * B_BOX, kt * BK);
            }
        }
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
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint2 at = grouped_tile(tile, tile_rows, tile_cols, GROUP);
        #pragma unroll
        for (unsigned i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
        // Per k-tile: wait for its stage, issue its 4 wgmma (k = 16 each) as
        // one group, then wait until at most this group is in flight and hand
        // the previous k-tile's stage back.
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
            if (kt > 0 && t == 0) barrier_arrive(&empty[(it - 1) % STAGES]);
        }
        wgmma_wait<0>();
        if (t == 0) barrier_arrive(&empty[(it - 1) % STAGES]);
        // Fewer than four k-tiles: the held boxes not yet stored.
        if (holding) store_held_boxes(held, k_tiles, &C_map, buffer, held_row0, held_col0, t, consumer);

        const unsigned row0 = at.x * BM + consumer * (BM / 2), col0 = at.y * BN;
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

// The untimed pass before v14 (and cuBLAS's BF16 GEMM): in (rows × cols
// floats) rounded to bf16, to nearest even, into out (rows × padded), the
// padding zero (a tensor map's row stride is a multiple of 16 bytes). A
// template, kept out of the lab's PTX as pad_rows is.
template <typename T>
__global__ void round_rows_to_bf16(const T* __restrict__ in, __nv_bfloat16* out, unsigned rows, unsigned cols, unsigned padded)
{
    const unsigned r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
    for (unsigned i = threadIdx.y; i < 32; i += blockDim.y) {
        const unsigned r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < padded)
            out[static_cast<size_t>(r) * padded + c] = __float2bfloat16_rn(c < cols ? float(in[static_cast<size_t>(r) * cols + c]) : 0.0f);
    }
}

}  // namespace warplab::matmul
