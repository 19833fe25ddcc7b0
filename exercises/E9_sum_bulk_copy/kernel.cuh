// E9: a sum fed by the copy engine (mirrors reduction v9 -> v10).
//
// Block b adds up pieces b, b + gridDim.x, b + 2 * gridDim.x, ... of `in`
// (`pieces` pieces of kPieceInts ints) and writes the sum to out[blockIdx.x].
// The warps do not load `in` themselves: Hopper's copy engine brings each
// piece into a ring of kSlots slots in shared memory (cp.async.bulk) and
// counts its bytes off the slot's mbarrier; a thread waits on the mbarrier
// before it reads the slot. Thread 0 starts the first kSlots copies (given);
// you write the loop that adds each piece and hands its slot back.
//
// Grade it:  build/warplab grade E9        (README.md says what is checked)
#pragma once

namespace exercise {

constexpr unsigned kPieceInts = 1024;  // 4 KB a piece
constexpr unsigned kSlots = 2;

// ---- Given: the copy engine's PTX, as reduction v10 uses it ----

__device__ inline unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// An mbarrier whose phase completes on one arrival (and the bytes it expects).
__device__ inline void init_slot_barrier(unsigned long long* bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
}

// One thread: the slot's mbarrier expects a piece's bytes (its one arrival),
// and the copy engine copies the piece into the slot and counts them off it.
__device__ inline void fill_slot(int* slot, const int* piece, unsigned long long* bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
                 "r"(kPieceInts * 4u) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     shared_address(slot)), "l"(piece), "r"(kPieceInts * 4u), "r"(shared_address(bar)) : "memory");
}

// Any thread: returns once the mbarrier has completed its phase of this parity
// (the slot's first fill is phase 0, its second phase 1, its third phase 0 ...).
__device__ inline void wait_slot(unsigned long long* bar, unsigned parity)
{
    for (unsigned done = 0; !done;)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(shared_address(bar)), "r"(parity) : "memory");
}

template <unsigned BLOCK>
__global__ void ring_sum(const int* __restrict__ in, int* out, unsigned pieces)
{
    __shared__ __align__(128) int ring[kSlots][kPieceInts];
    __shared__ __align__(8) unsigned long long landed[kSlots];
    __shared__ int sdata[BLOCK];

    // This block's pieces: k = 0 .. mine - 1 is piece blockIdx.x + k * gridDim.x.
    const unsigned mine = pieces > blockIdx.x ? (pieces - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    const int* first = in + blockIdx.x * kPieceInts;
    const unsigned step = gridDim.x * kPieceInts;

    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < kSlots; ++s) init_slot_barrier(&landed[s]);
        for (unsigned k = 0; k < kSlots && k < mine; ++k) fill_slot(ring[k], first + k * step, &landed[k]);
    }
    __syncthreads();

    int sum = 0;
    for (unsigned k = 0; k < mine; ++k) {
        // TODO: piece k is in slot k % kSlots, the (k / kSlots)-th fill of that
        // slot. Wait for it (wait_slot with that fill's parity), add its
        // kPieceInts ints to sum (thread t takes t, t + BLOCK, ...), let every
        // thread finish reading the slot (__syncthreads()), then have thread 0
        // refill the slot with piece k + kSlots, if this block has one.
    }

    // The block's sum (given): a tree in shared memory.
    sdata[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
