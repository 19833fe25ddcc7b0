// Tile copies through libcu++'s asynchronous copy, as the SGEMM tutorial's
// double-buffered kernel writes them.
//
// Idea: each block copies its tile of `in` to shared memory with
//   cuda::memcpy_async, completing on a cuda::barrier (barrier_sum) or on a
//   cuda::pipeline's stages (pipeline_sum), then sums it from shared memory.
// Expected effect: out[block] = the sum of the block's 128 inputs.
// Preconditions: blockDim.x == 128; the input has gridDim.x * 128 ints.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline_primitives.h>

namespace cg = cooperative_groups;

// The barrier is initialised by one thread below, as libcu++'s examples do.
#pragma nv_diag_suppress static_var_with_dynamic_init

__device__ int block_sum(const int* tile)
{
    __shared__ int partial[128];
    partial[threadIdx.x] = tile[threadIdx.x];
    __syncthreads();
    for (unsigned s = 64; s > 0; s /= 2) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    return partial[0];
}

__global__ void barrier_sum(const int* in, int* out)
{
    __shared__ alignas(16) int tile[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> ready;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&ready, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * 128, sizeof(int) * 128, ready);  // marker: barrier copy
    ready.arrive_and_wait();
    const int sum = block_sum(tile);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

__global__ void pipeline_sum(const int* in, int* out)
{
    __shared__ alignas(16) int tile[128];
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(tile + threadIdx.x, in + blockIdx.x * 128 + threadIdx.x, sizeof(int), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    const int sum = block_sum(tile);
    pipe.consumer_release();
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Ampere's cp.async through the pipeline primitives, as double-buffered tile
// loops write it: a copy lands when its thread waits for its group
// (__pipeline_wait_prior(N): all but the N newest groups), and __syncthreads()
// does not wait for copies.
//
// double_buffer_sum: right. Stage t + 1's copy is in flight while stage t is
//   summed; wait_prior(1) lands stage t only. out[block] = the sum of the
//   block's `tiles` tiles of 128.
// early_stage_read: wrong. After wait_prior(1) it also reads the next stage,
//   which has not landed: at t = 0 that stage was never written.
// unwaited_read: wrong. It commits but never waits before reading.
// stale_read: wrong. The tile held zeros; the copy lands only at the late
//   wait, after other threads read the tile: a race with the copy.
__global__ void double_buffer_sum(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int stage[2][128];
    const int* mine = in + blockIdx.x * tiles * 128 + threadIdx.x;
    __pipeline_memcpy_async(&stage[0][threadIdx.x], mine, sizeof(int));
    __pipeline_commit();
    int sum = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) __pipeline_memcpy_async(&stage[(t + 1) % 2][threadIdx.x], mine + (t + 1) * 128, sizeof(int));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        sum += block_sum(stage[t % 2]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

__global__ void early_stage_read(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int stage[2][128];
    const int* mine = in + blockIdx.x * tiles * 128 + threadIdx.x;
    __pipeline_memcpy_async(&stage[0][threadIdx.x], mine, sizeof(int));
    __pipeline_commit();
    __pipeline_memcpy_async(&stage[1][threadIdx.x], mine + 128, sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = stage[0][threadIdx.x] + stage[1][threadIdx.x];  // marker: early stage
}

__global__ void unwaited_read(const int* in, int* out)
{
    __shared__ alignas(16) int tile[128];
    __pipeline_memcpy_async(tile + threadIdx.x, in + blockIdx.x * 128 + threadIdx.x, sizeof(int));
    __pipeline_commit();
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = tile[127 - threadIdx.x];  // marker: unwaited
}

__global__ void stale_read(const int* in, int* out)
{
    __shared__ alignas(16) int tile[128];
    tile[threadIdx.x] = 0;
    __syncthreads();
    __pipeline_memcpy_async(tile + threadIdx.x, in + blockIdx.x * 128 + threadIdx.x, sizeof(int));  // marker: late copy
    __pipeline_commit();
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = tile[127 - threadIdx.x];  // marker: stale
    __pipeline_wait_prior(0);
}
