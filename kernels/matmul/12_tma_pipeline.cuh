// Matmul v12: feed the tensor cores. The bulk tensor copy engine (TMA)
// fills a ring of shared-memory stages; one warpgroup only issues copies,
// two only multiply.
//
// Idea: v11's warpgroup waited for its own wgmma after every tile, and every
//   thread spent instructions on copies. Here the work is split by warps, as
//   in the Hopper GEMMs NVIDIA describes (CUTLASS's "warp-specialized"
//   kernels): warpgroup 0 is the producer; one of its threads asks the copy
//   engine for whole tiles (cp.async.bulk.tensor, one instruction per tile,
//   addressed by a tensor map the host makes) into a ring of STAGES stages.
//   Each stage has two mbarriers: "full" completes when the copy engine has
//   written the stage's bytes, "empty" when both consumers are done with it.
//   Warpgroups 1 and 2 are the consumers: each owns 64 rows of the block's
//   128×256 tile of C, waits for a full stage, issues its wgmma for the whole
//   tile and commits them, then waits only for the group before (wait_group
//   1) and hands that stage back: the tensor cores always have the next
//   tile's work queued. setmaxnreg moves registers from the producer (which
//   needs few) to the consumers (128 accumulators each).
//   TF32 wgmma reads both operands K-major from shared memory. A (M×K,
//   row-major) is; B is not, so the launch first transposes B once into
//   Bt (N×K, row-major), a pass over B that the timing includes. Then C =
//   A·B directly, both operands by descriptor, nothing through registers.
// Changed from v11: a 384-thread block (a producer warpgroup and two
//   consumer warpgroups) owns a 128×256 tile of C; tiles come by TMA with
//   the 128-byte swizzle into 4 stages of 48 KB (dynamic shared memory);
//   m64n256k8 with both operands from shared memory; blocks are ordered in
//   groups of 8 block-rows, so that blocks running at the same time share
//   tiles of A and Bt in L2; B is transposed first (and A's rows padded
//   when K is not a multiple of 4, as a tensor map's row stride must be a
//   multiple of 16 bytes).
// Expected effect: faster than v11 at every size, most at large sizes, and
//   near cuBLAS TF32 there; the same TF32 error. At small sizes the extra
//   pass over B and the few blocks weigh more.
// Needs the sm_90a target (wgmma, setmaxnreg); elsewhere (the emulator's
//   compute_90 PTX) the kernel does nothing. Runs only on a GPU.
// Preconditions: blockDim == 384; grid == (ceil(N / 256), ceil(M / 128));
//   dynamic shared memory STAGES × 48 KB + 1 KB; tensor maps of A (K × M)
//   and Bt (K × N, both with K padded to Kp, a multiple of 4) with boxes of
//   32 × 128 and 32 × 256 floats and the 128-byte swizzle; C 8-byte aligned.
#pragma once
#include <cuda.h>  // CUtensorMap

#include "kernels/matmul/11_wgmma.cuh"  // shared_address, tile_descriptor, the wgmma fences

namespace warplab::matmul {

__device__ inline void wgmma_wait_all_but_one() { asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory"); }

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

// D (64×256, registers) += A (64×8) · B (8×256), both read by the tensor
// cores from shared memory through descriptors (K-major, 128-byte swizzle).
__device__ inline void wgmma_m64n256k8_tf32_ss(float (&d)[128], unsigned long long a_desc, unsigned long long b_desc)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1;\n}\n"
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

// Block (bx, by) of the grid, visited in groups of GROUP block-rows, column by
// column: the blocks resident together read few distinct tiles of A and Bt.
__device__ inline uint2 grouped_block(unsigned group)
{
    const unsigned id = blockIdx.y * gridDim.x + blockIdx.x, per_group = group * gridDim.x;
    const unsigned first = id / per_group * group, rows = min(group, gridDim.y - first);
    return make_uint2((id % per_group) / rows, first + (id % per_group) % rows);
}

template <unsigned BN, unsigned STAGES, unsigned GROUP>
__global__ void __launch_bounds__(384, 1)
    matmul_tma_pipeline(const __grid_constant__ CUtensorMap A, const __grid_constant__ CUtensorMap Bt, float* C,
                        unsigned M, unsigned N, unsigned K)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr unsigned BM = 128, BK = 32;  // BK: one 128-byte swizzle row of floats
    constexpr unsigned A_BYTES = BM * BK * 4, STAGE_BYTES = A_BYTES + BN * BK * 4;
    static_assert(BN == 256, "one m64n256k8 per consumer and 8 k");
    extern __shared__ unsigned char dynamic_shared[];
    // The swizzle repeats every 1024 bytes: stages start on such a boundary.
    unsigned char* stages = dynamic_shared + (1024 - shared_address(dynamic_shared) % 1024) % 1024;
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
    const uint2 block = grouped_block(GROUP);
    const unsigned bm = block.y * BM, bn = block.x * BN;
    const unsigned tiles = (K + BK - 1) / BK;
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
                copy_tile(stages + s * STAGE_BYTES, &A, &full[s], tile * BK, bm);
                copy_tile(stages + s * STAGE_BYTES + A_BYTES, &Bt, &full[s], tile * BK, bn);
            }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const unsigned consumer = warpgroup - 1;  // rows consumer·64 ... + 63 of the block's tile
    float acc[BN / 2];
    #pragma unroll
    for (unsigned i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    for (unsigned tile = 0; tile < tiles; ++tile) {
        const unsigned s = tile % STAGES;
        barrier_wait(&full[s], tile / STAGES % 2);
        const unsigned a = shared_address(stages + s * STAGE_BYTES) + consumer * 64 * BK * 4;
        const unsigned b = shared_address(stages + s * STAGE_BYTES + A_BYTES);
        wgmma_fence();
        #pragma unroll
        for (unsigned k = 0; k < BK; k += 8)
            wgmma_m64n256k8_tf32_ss(acc, tile_descriptor<BK * 4>(a + k * 4), tile_descriptor<BK * 4>(b + k * 4));
        wgmma_commit();
        wgmma_wait_all_but_one();  // the previous tile's group is done: its stage goes back
        if (tile > 0 && t == 0) barrier_arrive(&empty[(tile - 1) % STAGES]);
    }
    wgmma_wait_all();

    // acc holds rows r0 and r0 + 8 of the consumer's 64, at columns 8j + 2·(lane % 4) and + 1.
    const unsigned warp = t / 32, lane = t % 32;
    const unsigned r0 = bm + consumer * 64 + warp * 16 + lane / 4;
    #pragma unroll
    for (unsigned j = 0; j < BN / 8; ++j) {
        const unsigned col = bn + j * 8 + 2 * (lane % 4);
        #pragma unroll
        for (unsigned h = 0; h < 2; ++h) {
            const unsigned r = r0 + 8 * h;
            const float x = acc[4 * j + 2 * h], y = acc[4 * j + 2 * h + 1];
            if (r >= M) continue;
            if (N % 2 == 0 && col + 1 < N) {
                *reinterpret_cast<float2*>(C + static_cast<size_t>(r) * N + col) = make_float2(x, y);
            } else {
                if (col < N) C[static_cast<size_t>(r) * N + col] = x;
                if (col + 1 < N) C[static_cast<size_t>(r) * N + col + 1] = y;
            }
        }
    }
#else
    (void)A, (void)Bt, (void)C, (void)M, (void)N, (void)K;
#endif
}

// The launch's first pass: Bt[n][k] = B[k][n] for k < K, zeros up to Kp
// (TRANSPOSE); or A's rows padded, Ap[m][k] = A[m][k], zeros up to Kp.
// 32×32 tiles through shared memory, padded against bank conflicts (see the
// transpose lab). A template, so that only the GPU build that launches it
// compiles it: the lab's PTX holds the versions' kernels and nothing else.
template <bool TRANSPOSE>
__global__ void to_k_major(const float* __restrict__ in, float* out, unsigned rows, unsigned cols, unsigned padded)
{
    const unsigned r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
    if constexpr (TRANSPOSE) {  // out[c][r] = in[r][c]: in is K × N, out N × padded
        __shared__ float tile[32][33];
        for (unsigned i = threadIdx.y; i < 32; i += blockDim.y) {
            const unsigned r = r0 + i, c = c0 + threadIdx.x;
            tile[i][threadIdx.x] = r < rows && c < cols ? in[static_cast<size_t>(r) * cols + c] : 0.0f;
        }
        __syncthreads();
        for (unsigned i = threadIdx.y; i < 32; i += blockDim.y) {
            const unsigned c = c0 + i, r = r0 + threadIdx.x;
            if (c < cols && r < padded) out[static_cast<size_t>(c) * padded + r] = tile[threadIdx.x][i];
        }
    } else {  // out[r][c] = in[r][c] for c < cols, 0 up to padded
        for (unsigned i = threadIdx.y; i < 32; i += blockDim.y) {
            const unsigned r = r0 + i, c = c0 + threadIdx.x;
            if (r < rows && c < padded) out[static_cast<size_t>(r) * padded + c] = c < cols ? in[static_cast<size_t>(r) * cols + c] : 0.0f;
        }
    }
}

}  // namespace warplab::matmul
