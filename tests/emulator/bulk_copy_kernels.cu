// Kernels around Hopper's bulk copy engine (cp.async.bulk) and its mbarriers,
// for test_bulk_copy.cpp: one that uses them right, and one fault each,
// marked FAULT(name) as in faulty_kernels.cu. They use reduction v10's own
// helpers (bulk_copy, wait_landed), as a student's kernel would.
#include "kernels/reduction/10_bulk_copy.cuh"

using warplab::reduction::bulk_copy;
using warplab::reduction::shared_address;
using warplab::reduction::wait_landed;

constexpr unsigned kPiece = 1024;  // bytes: 256 ints

__device__ void init_mbarrier(unsigned long long* bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
}

// Thread 0 sets up the mbarrier and copies `bytes` of in into the ring.
__device__ void first_copy(int* ring, const int* in, unsigned bytes, unsigned long long* landed)
{
    if (threadIdx.x == 0) {
        init_mbarrier(landed);
        bulk_copy(ring, in, bytes, landed);
    }
}

// Piece p of `in` goes through a one-slot ring into out (piece p of out),
// pieces in order, each waited for with Wait. The last thread issues each
// copy, so the block's other warps reach the wait first and must wait for it.
template <void (*Wait)(unsigned long long*, unsigned)> __device__ void through_ring(const int* in, int* out, unsigned pieces)
{
    __shared__ __align__(128) int ring[kPiece / 4];
    __shared__ __align__(8) unsigned long long landed;
    const bool issuer = threadIdx.x == blockDim.x - 1;
    if (issuer) init_mbarrier(&landed);
    __syncthreads();
    for (unsigned p = 0; p < pieces; ++p) {
        if (issuer) bulk_copy(ring, in + p * (kPiece / 4), kPiece, &landed);
        Wait(&landed, p % 2);
        for (unsigned i = threadIdx.x; i < kPiece / 4; i += blockDim.x) out[p * (kPiece / 4) + i] = ring[i];
        __syncthreads();  // every thread has read the slot before it is filled again
    }
}

__global__ void copy_through_ring(const int* in, int* out, unsigned pieces) { through_ring<wait_landed>(in, out, pieces); }

// The same with the wait in a function nvcc does not inline: a kernel with
// calls runs each lane on a fiber, where a waiting lane yields instead of returning.
__device__ __noinline__ void wait_called(unsigned long long* landed, unsigned parity) { wait_landed(landed, parity); }

__global__ void copy_through_ring_called(const int* in, int* out, unsigned pieces)
{
    through_ring<wait_called>(in, out, pieces);
}

// Reads the slot after a __syncthreads() but without waiting on its mbarrier:
// the copy may not have landed.
__global__ void read_before_wait(const int* in, int* out)
{
    __shared__ __align__(128) int ring[kPiece / 4];
    __shared__ __align__(8) unsigned long long landed;
    first_copy(ring, in, kPiece, &landed);
    __syncthreads();
    out[threadIdx.x] = ring[threadIdx.x];  // FAULT(read_before_wait)
    wait_landed(&landed, 0);
}

// Waits for a phase nobody arrives at: no thread arms mbarrier 2 of 4. Like
// v10 (warp_sums) the kernel also has 4-byte shared variables: the report
// must still count the mbarriers in 8-byte elements.
__global__ void wait_never_armed(int* out)
{
    __shared__ __align__(8) unsigned long long landed[4];
    __shared__ int word[32];
    if (threadIdx.x < 4) init_mbarrier(&landed[threadIdx.x]);
    if (threadIdx.x < 32) word[threadIdx.x] = threadIdx.x;
    __syncthreads();
    wait_landed(&landed[2], 0);  // waits for ever: reported at wait_landed's try_wait
    out[threadIdx.x] = word[threadIdx.x % 32];
}

// Refills the slot while other threads may still be reading it: the
// __syncthreads() between the reads and the next copy is missing.
__global__ void refill_without_barrier(const int* in, int* out)
{
    __shared__ __align__(128) int ring[kPiece / 4];
    __shared__ __align__(8) unsigned long long landed;
    first_copy(ring, in, kPiece, &landed);
    __syncthreads();
    wait_landed(&landed, 0);
    out[threadIdx.x] = ring[threadIdx.x];  // FAULT(refill_reads)
    if (threadIdx.x == blockDim.x - 1) bulk_copy(ring, in + kPiece / 4, kPiece, &landed);
    wait_landed(&landed, 1);
}

// A bulk copy of 24 bytes: the copy engine moves multiples of 16.
__global__ void copy_odd_size(const int* in, int* out)
{
    __shared__ __align__(128) int ring[kPiece / 4];
    __shared__ __align__(8) unsigned long long landed;
    first_copy(ring, in, 24, &landed);
    __syncthreads();
    wait_landed(&landed, 0);
    out[threadIdx.x] = ring[threadIdx.x % 6];
}

// Waits on an mbarrier no thread initialised.
__global__ void wait_uninitialised(int* out)
{
    __shared__ __align__(8) unsigned long long landed;
    wait_landed(&landed, 0);  // reported at wait_landed's try_wait
    out[threadIdx.x] = 1;
}
