// Reduction v10: Hopper's bulk copy engine feeds the adds.
//
// Idea: in v9 every thread issues its own 16-byte loads and waits for them in
//   registers, so the bytes in flight are limited by registers and by how far
//   ahead the loop can run. Hopper (sm_90) has a copy engine per SM that moves
//   a whole contiguous piece of global memory into shared memory on one
//   instruction (`cp.async.bulk`), and signals an mbarrier when the bytes have
//   landed. One thread keeps a ring of pieces in flight; the block adds each
//   piece from shared memory as it arrives, then hands the slot back.
// Changed from v9: the grid-stride loop of int4/float4 loads became a ring of
//   32 KB pieces in dynamic shared memory (as many as the launch gives it),
//   each filled by one bulk copy and waited for on its own mbarrier; block b
//   takes pieces b, b + gridDim.x, ... so that the blocks read neighbouring
//   memory together. One block per SM. The block sum and the last-block
//   finish are v9's.
// Expected effect: a few percent above v9 at sizes far beyond L2, where both
//   are close to the DRAM bandwidth; about the same below.
// Preconditions: as v9, plus sm_90 and a dynamic shared size that is a
//   multiple of kPieceBytes, at most kMaxPieces of them.
#pragma once

#include "kernels/reduction/09_vector_single_pass.cuh"

namespace warplab::reduction {

inline constexpr unsigned kPieceBytes = 32 * 1024;
inline constexpr unsigned kMaxPieces = 8;

__device__ inline unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// The mbarrier expects `bytes` more to arrive (its one arrival is this call), and
// the copy engine moves `bytes` from `from` to `to`, then counts them off it.
__device__ inline void bulk_copy(void* to, const void* from, unsigned bytes, unsigned long long* landed)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(landed)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     shared_address(to)),
                 "l"(from), "r"(bytes), "r"(shared_address(landed))
                 : "memory");
}

// Waits until the mbarrier has completed the phase of the given parity (0, 1, 0, ...).
__device__ inline void wait_landed(unsigned long long* landed, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(shared_address(landed)), "r"(parity)
                     : "memory");
    }
}

__device__ inline unsigned dynamic_shared_bytes()
{
    unsigned bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes;
}

template <unsigned BLOCK, class T>
__global__ void reduce_bulk_copy(const T* __restrict__ g_in, T* g_partial, unsigned* g_done, T* g_out, unsigned n)
{
    static_assert(BLOCK % 32 == 0 && BLOCK >= 64 && BLOCK <= 1024, "BLOCK is a multiple of 32, 64..1024");
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ __align__(8) unsigned long long landed[kMaxPieces];
    __shared__ T warp_sums[BLOCK / 32];
    __shared__ unsigned is_last[1];

    // 1. Block b owns pieces b, b + gridDim.x, ...; `mine` of them.
    const unsigned slots = dynamic_shared_bytes() / kPieceBytes;
    const unsigned pieces = static_cast<unsigned>(std::size_t(n) * sizeof(T) / kPieceBytes);
    const unsigned mine = pieces > blockIdx.x ? (pieces - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    const unsigned char* first = reinterpret_cast<const unsigned char*>(g_in) + std::size_t(blockIdx.x) * kPieceBytes;
    const std::size_t step = std::size_t(gridDim.x) * kPieceBytes;

    // 2. Thread 0 sets up one mbarrier per slot and fills every slot.
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < slots; ++s)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&landed[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (unsigned s = 0; s < slots && s < mine; ++s) bulk_copy(ring + s * kPieceBytes, first + s * step, kPieceBytes, &landed[s]);
    }
    __syncthreads();

    // 3. Add each piece as it lands; then thread 0 refills its slot.
    using V4 = typename Vec4<T>::type;
    T sum = T(0);
    for (unsigned i = 0; i < mine; ++i) {
        const unsigned s = i % slots;
        wait_landed(&landed[s], (i / slots) % 2);
        const V4* piece = reinterpret_cast<const V4*>(ring + s * kPieceBytes);
#pragma unroll
        for (unsigned j = 0; j < kPieceBytes / sizeof(V4) / BLOCK; ++j) {
            const V4 v = piece[threadIdx.x + j * BLOCK];
            sum += add_lanes<T>(v);
        }
        __syncthreads();  // every thread has read slot s
        if (threadIdx.x == 0 && i + slots < mine)
            bulk_copy(ring + s * kPieceBytes, first + (i + slots) * step, kPieceBytes, &landed[s]);
    }
    // The elements after the last whole piece: block 0, ordinary loads.
    if (blockIdx.x == 0)
        for (unsigned k = pieces * (kPieceBytes / sizeof(T)) + threadIdx.x; k < n; k += BLOCK) sum += g_in[k];

    // 4. One partial per block; the last block adds them (as v9).
    add_partials_in_last_block<BLOCK>(sum, warp_sums, is_last, g_partial, g_done, g_out);
}

}  // namespace warplab::reduction
