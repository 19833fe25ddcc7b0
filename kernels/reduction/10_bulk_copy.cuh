// Reduction v10: Hopper's bulk copy engine feeds the adds.
//
// Idea: v9's threads each hold their loads in registers until they land. Hopper
//   (sm_90) has a copy engine per SM that moves a contiguous piece of global
//   memory into shared memory on one instruction (`cp.async.bulk`) and signals
//   an mbarrier when it has landed: one thread keeps a ring of pieces in flight,
//   the block adds each piece as it arrives and hands the slot back.
// Changed from v9: the loads became a ring of 32 KB pieces in dynamic shared
//   memory, one bulk copy and one mbarrier each; block b takes pieces b,
//   b + gridDim.x, ...; one block per SM. A launch with no ring (chosen where
//   each SM would get too few pieces to repay the ring's start-up) runs v9's
//   loads, but each thread issues a round's four before it adds any, on a
//   grid sized for one round a thread. The last block's handshake is one
//   acquire-release atomic, not v9's fence, atomic and fence.
// Expected effect: a few percent above v9 far beyond L2; below, a few
//   percent too: the short rounds no longer wait for memory once a load, and
//   fewer blocks count in.
// Preconditions: as v9, plus sm_90 and a dynamic shared size of 0 or a
//   multiple of kPieceBytes, at most kMaxPieces of them.
#pragma once

#include <cuda/atomic>

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

// v9's finish with a lighter handshake. Thread 0 writes the block's partial,
// then counts in with one acquire-release atomic: the release makes the
// partial visible before the count, and in the last block the acquire (then
// the barrier) makes every other partial visible to its threads, which read
// them from L2 (__ldcg). v9 needs a fence before its atomic and another after.
template <unsigned BLOCK, class T>
__device__ void add_partials_acquire_release(T sum, T* warp_sums, unsigned* is_last, T* g_partial, unsigned* g_done,
                                             T* g_out)
{
    sum = block_sum<BLOCK>(sum, warp_sums);
    if (threadIdx.x == 0) {
        g_partial[blockIdx.x] = sum;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(g_done[0]);
        is_last[0] = done.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last[0]) {
        T total = T(0);
        for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) total += __ldcg(&g_partial[b]);
        total = block_sum<BLOCK>(total, warp_sums);
        if (threadIdx.x == 0) {
            g_out[0] = total;
            g_done[0] = 0u;
        }
    }
}

// This thread's share of g_in[0, n) without a ring: v9's 16-byte loads a
// grid stride apart, but every round issues all four before adding any, so a
// round cut short by the end of the data waits for memory once. v9's
// remainder loop adds each load before issuing the next.
template <unsigned BLOCK, class T>
__device__ T sum_loads_in_flight(const T* __restrict__ g_in, unsigned n)
{
    using V4 = typename Vec4<T>::type;
    const V4* in4 = reinterpret_cast<const V4*>(g_in);
    const unsigned n4 = n / 4;
    const unsigned stride = BLOCK * gridDim.x;
    T sum = T(0);
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n4; i += 4 * stride) {
        V4 v[4];
#pragma unroll
        for (unsigned j = 0; j < 4; ++j) v[j] = i + j * stride < n4 ? in4[i + j * stride] : V4{};
        sum += (add_lanes<T>(v[0]) + add_lanes<T>(v[1])) + (add_lanes<T>(v[2]) + add_lanes<T>(v[3]));
    }
    if (blockIdx.x == 0 && threadIdx.x < n % 4) sum += g_in[n4 * 4 + threadIdx.x];
    return sum;
}

// This thread's share of the whole pieces of g_in, through a ring of `slots`
// pieces (slots >= 1), plus, in block 0, the elements after the last piece.
template <unsigned BLOCK, class T>
__device__ T sum_through_ring(const T* __restrict__ g_in, unsigned n, unsigned slots, unsigned char* ring,
                              unsigned long long* landed)
{
    // 1. Block b owns pieces b, b + gridDim.x, ...; `mine` of them.
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
    return sum;
}

template <unsigned BLOCK, class T>
__global__ void reduce_bulk_copy(const T* __restrict__ g_in, T* g_partial, unsigned* g_done, T* g_out, unsigned n)
{
    static_assert(BLOCK % 32 == 0 && BLOCK >= 64 && BLOCK <= 1024, "BLOCK is a multiple of 32, 64..1024");
    extern __shared__ __align__(128) unsigned char ring[];
    __shared__ __align__(8) unsigned long long landed[kMaxPieces];
    __shared__ T warp_sums[BLOCK / 32];
    __shared__ unsigned is_last[1];

    // 1. The ring's feed, or rounds of loads where the launch gave no ring.
    const unsigned slots = dynamic_shared_bytes() / kPieceBytes;
    const T sum = slots > 0 ? sum_through_ring<BLOCK>(g_in, n, slots, ring, landed) : sum_loads_in_flight<BLOCK>(g_in, n);

    // 2. One partial per block; the last block adds them.
    add_partials_acquire_release<BLOCK>(sum, warp_sums, is_last, g_partial, g_done, g_out);
}

}  // namespace warplab::reduction
