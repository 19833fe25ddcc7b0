// Small kernels for test_emulator_semantics.cpp, in plain CUDA: each shows
// one rule of CUDA's execution model (warp intrinsics with partial masks and
// width segments, atomics, 2D indices, partial warps, the lane schedules).
// The test derives every expected value by hand.
#include "semantics_rows.h"

using namespace semantics;

constexpr unsigned kFullMask = 0xffffffffu;

// ---- shuffles ----

__global__ void shuffle_down_tree_sum(int* out)
{
    int v = threadIdx.x;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
    out[threadIdx.x] = v;
}

__global__ void shuffle_variants(int* rows)
{
    int lane = threadIdx.x;
    rows[kUp3 * kLanes + lane] = __shfl_up_sync(kFullMask, 100 + lane, 3);
    rows[kXor5 * kLanes + lane] = __shfl_xor_sync(kFullMask, 100 + lane, 5);
    rows[kIdx7 * kLanes + lane] = __shfl_sync(kFullMask, 100 + lane, 7);
    rows[kIdx37 * kLanes + lane] = __shfl_sync(kFullMask, 100 + lane, 37);
}

__global__ void shuffle_in_segments(int* rows)
{
    int lane = threadIdx.x;
    rows[kDown4Width16 * kLanes + lane] = __shfl_down_sync(kFullMask, 100 + lane, 4, 16);
    rows[kIdx3Width16 * kLanes + lane] = __shfl_sync(kFullMask, 100 + lane, 3, 16);
    rows[kUp2Width8 * kLanes + lane] = __shfl_up_sync(kFullMask, 100 + lane, 2, 8);
}

__global__ void shuffle_xor_across_segments(int* xor16_w16)
{
    int lane = threadIdx.x;
    xor16_w16[lane] = __shfl_xor_sync(kFullMask, 100 + lane, 16, 16);
}

// ---- votes and warp reductions with partial masks ----

__global__ void votes_in_halves(unsigned* rows)
{
    unsigned lane = threadIdx.x;
    unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    rows[kBallot * kLanes + lane] = __ballot_sync(half, lane % 3 == 0);
    rows[kAny * kLanes + lane] = __any_sync(half, lane == 20);
    rows[kAll * kLanes + lane] = __all_sync(half, lane != 7);
    rows[kReduceAdd * kLanes + lane] = __reduce_add_sync(half, lane);
}

// Lanes 0..15 exchange words through shared memory; lanes 16..31 exit at once,
// which a __syncwarp() naming only lanes 0..15 must not wait for.
__global__ void exchange_in_low_half(int* out)
{
    __shared__ int word[16];
    unsigned lane = threadIdx.x;
    if (lane < 16) {
        word[lane] = lane * lane;
        __syncwarp(0x0000ffffu);
        out[lane] = word[15 - lane];
    }
}

// ---- atomics ----

__global__ void count_threads_and_blocks(unsigned* threads, unsigned* block_numbers)
{
    atomicAdd(&threads[0], 1u);
    atomicAdd(&block_numbers[0], blockIdx.x + 1);
}

__global__ void shared_bins_of_thread_ids(unsigned* out)
{
    __shared__ unsigned bins[4];
    if (threadIdx.x < 4) bins[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&bins[threadIdx.x % 4], threadIdx.x);
    __syncthreads();
    if (threadIdx.x < 4) out[blockIdx.x * 4 + threadIdx.x] = bins[threadIdx.x];
}

// ---- indices and dimensions ----

// Writes its position digits into the element of a 2D image it owns.
__global__ void position_digits(unsigned* image, unsigned* dims)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned width = gridDim.x * blockDim.x;
    image[y * width + x] = threadIdx.x + 10 * threadIdx.y + 100 * blockIdx.x + 1000 * blockIdx.y;
    dims[0] = blockDim.x + 10 * blockDim.y + 100 * blockDim.z + 1000 * gridDim.x + 10000 * gridDim.y + 100000 * gridDim.z;
}

// Every warp sums its lanes' thread ids with the mask of the lanes it has.
__global__ void warp_sums_of_partial_block(unsigned* out)
{
    unsigned tid = threadIdx.x;
    unsigned lanes_here = min(32u, blockDim.x - tid / 32 * 32);
    unsigned mask = lanes_here == 32 ? kFullMask : (1u << lanes_here) - 1;
    __syncthreads();
    out[tid] = __reduce_add_sync(mask, tid);
}

// ---- the two schedules ----

// Every lane takes two tickets from a shared counter and writes its id at
// both ticket positions: `order` is the sequence in which lanes arrived.
__global__ void arrival_order(unsigned* order)
{
    __shared__ unsigned ticket[1];
    if (threadIdx.x == 0) ticket[0] = 0;
    __syncthreads();
    unsigned first = atomicAdd(&ticket[0], 1u);
    unsigned second = atomicAdd(&ticket[0], 1u);
    order[first] = threadIdx.x;
    order[second] = threadIdx.x;
}

// Every lane stores its id to one word, with nothing between them: the lane
// that stores last is the last in the order the schedule ran them.
__global__ void last_writer(unsigned* out)
{
    out[0] = threadIdx.x;
}
