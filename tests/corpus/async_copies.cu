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
