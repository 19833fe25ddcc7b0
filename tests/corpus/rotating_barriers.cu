// Multi-stage tile loops through libcu++'s asynchronous copies, as SGEMM
// tutorials write them: each stage's tile has its own cuda::barrier (two or
// three, taking turns), or the stages are a cuda::pipeline's.
//
// Idea: block b walks its `tiles` tiles of 128 ints; tile t is copied with
//   cuda::memcpy_async into stage t % kStages while earlier stages are read.
//   Thread i reads element 127 - i of each tile (another thread copied it), so
//   only the barriers order the copy before the read, and a stage's reads
//   before the copy that overwrites it.
// Expected effect: out[128 b + i] = sum over t of (t + 1) * tile_t[127 - i].
// Preconditions: blockDim.x == 128; in holds gridDim.x * tiles * 128 ints.
//
// The wrong kernels (each a data race the barriers do not exclude):
// read_before_wait reads a stage before waiting on its barrier;
// prefetch_before_wait copies into the stage of the tile before the one it
//   waits for, which other threads may still be reading.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;
using Barrier = cuda::barrier<cuda::thread_scope_block>;

// The barriers are initialised by one thread below, as libcu++'s examples do.
#pragma nv_diag_suppress static_var_with_dynamic_init

constexpr unsigned kTileInts = 128;

// kBulk: the size as cuda::aligned_size_t<16>, which on Hopper makes one
// thread's bulk copy (cp.async.bulk) of the tile; otherwise each thread copies
// its share with cp.async.
template <bool kBulk = false>
__device__ void copy_tile(cg::thread_block block, int* stage, const int* tile, Barrier& ready)
{
    if constexpr (kBulk) cuda::memcpy_async(block, stage, tile, cuda::aligned_size_t<16>(sizeof(int) * kTileInts), ready);
    else cuda::memcpy_async(block, stage, tile, sizeof(int) * kTileInts, ready);
}

// Each barrier expects the whole block, initialised by one thread.
template <unsigned kCount> __device__ void init_barriers(cg::thread_block block, Barrier (&bars)[kCount])
{
    if (block.thread_rank() == 0)
        for (unsigned s = 0; s < kCount; ++s) init(&bars[s], block.size());
    block.sync();
}

// kStages barriers taking turns: tile t on barrier t % kStages. The wait for
// tile t comes first: every thread has then finished tile t - 1, whose stage
// the copy of tile t + kStages - 1 overwrites.
template <unsigned kStages, bool kBulk = false>
__global__ void rotating_barriers(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int stage[kStages][kTileInts];
    __shared__ Barrier ready[kStages];
    auto block = cg::this_thread_block();
    init_barriers(block, ready);
    const int* tile = in + blockIdx.x * tiles * kTileInts;
    for (unsigned t = 0; t + 1 < kStages && t < tiles; ++t) copy_tile<kBulk>(block, stage[t], tile + t * kTileInts, ready[t]);
    int sum = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        ready[t % kStages].arrive_and_wait();
        const unsigned next = t + kStages - 1;
        if (next < tiles) copy_tile<kBulk>(block, stage[next % kStages], tile + next * kTileInts, ready[next % kStages]);
        sum += static_cast<int>(t + 1) * stage[t % kStages][kTileInts - 1 - threadIdx.x];  // marker: stage read
    }
    out[blockIdx.x * kTileInts + threadIdx.x] = sum;
}
template __global__ void rotating_barriers<2>(const int*, int*, unsigned);
template __global__ void rotating_barriers<3>(const int*, int*, unsigned);
template __global__ void rotating_barriers<2, true>(const int*, int*, unsigned);
template __global__ void rotating_barriers<3, true>(const int*, int*, unsigned);

// Two barriers that swap roles every iteration through a pair of pointers,
// with the two buffers, as the tutorials' double-buffered SGEMM loop does.
__global__ void swapped_barriers(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int buffers[2][kTileInts];
    __shared__ Barrier bars[2];
    auto block = cg::this_thread_block();
    init_barriers(block, bars);
    int *current = buffers[0], *following = buffers[1];
    Barrier *current_ready = &bars[0], *following_ready = &bars[1];
    const int* tile = in + blockIdx.x * tiles * kTileInts;
    copy_tile(block, current, tile, *current_ready);
    int sum = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        current_ready->arrive_and_wait();
        if (t + 1 < tiles) copy_tile(block, following, tile + (t + 1) * kTileInts, *following_ready);
        sum += static_cast<int>(t + 1) * current[kTileInts - 1 - threadIdx.x];
        int* const buffer = current;
        current = following;
        following = buffer;
        Barrier* const bar = current_ready;
        current_ready = following_ready;
        following_ready = bar;
    }
    out[blockIdx.x * kTileInts + threadIdx.x] = sum;
}

// The Programming Guide's producer-consumer loop over a block-scoped
// cuda::pipeline of kStages stages.
template <unsigned kStages>
__global__ void pipeline_stages(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int stage[kStages][kTileInts];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const int* tile = in + blockIdx.x * tiles * kTileInts;
    int sum = 0;
    for (unsigned t = 0, fetch = 0; t < tiles; ++t) {
        for (; fetch < tiles && fetch < t + kStages; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, stage[fetch % kStages], tile + fetch * kTileInts, sizeof(int) * kTileInts, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        sum += static_cast<int>(t + 1) * stage[t % kStages][kTileInts - 1 - threadIdx.x];
        pipe.consumer_release();
    }
    out[blockIdx.x * kTileInts + threadIdx.x] = sum;
}
template __global__ void pipeline_stages<2>(const int*, int*, unsigned);
template __global__ void pipeline_stages<3>(const int*, int*, unsigned);

// One lane of each warp waits on the barrier; __syncwarp() then orders the
// other lanes after what it saw (the copies of every thread of the block).
// out[128 b + i] = in[128 b + 127 - i]. Without the __syncwarp() (kSync
// false) the other lanes' reads are ordered after no copy: a race. kBulk: the
// tile comes as one bulk copy, written by the copy engine rather than by threads.
template <bool kSync, bool kBulk = false>
__global__ void one_waiter_per_warp(const int* in, int* out)
{
    __shared__ alignas(16) int tile[kTileInts];
    __shared__ Barrier ready[1];
    auto block = cg::this_thread_block();
    init_barriers(block, ready);
    copy_tile<kBulk>(block, tile, in + blockIdx.x * kTileInts, ready[0]);
    Barrier::arrival_token token = ready[0].arrive();
    if (threadIdx.x % warpSize == 0) ready[0].wait(static_cast<Barrier::arrival_token&&>(token));
    if (kSync) __syncwarp();
    out[blockIdx.x * kTileInts + threadIdx.x] = tile[kTileInts - 1 - threadIdx.x];  // marker: waiter's read
}
template __global__ void one_waiter_per_warp<true>(const int*, int*);
template __global__ void one_waiter_per_warp<false>(const int*, int*);
template __global__ void one_waiter_per_warp<true, true>(const int*, int*);
template __global__ void one_waiter_per_warp<false, true>(const int*, int*);

// Threads 64 and up leave after the first round with arrive_and_drop, as the
// Programming Guide's early exit does; the barrier then expects only the 64
// that stay. Each round thread t adds the value of its neighbour (t + 1
// modulo the threads still there), written before the first wait; the
// second wait orders the reads before the next round's writes.
// out[128 b + t] for t < 64: the sum the host works out (the rest: untouched).
__global__ void early_leavers(const int* in, int* out, unsigned rounds)
{
    __shared__ int value[kTileInts];
    __shared__ Barrier ready[1];
    auto block = cg::this_thread_block();
    init_barriers(block, ready);
    const unsigned t = threadIdx.x;
    unsigned active = blockDim.x;
    int v = in[blockIdx.x * kTileInts + t];
    for (unsigned r = 0; r < rounds; ++r) {
        value[t] = v;
        ready[0].arrive_and_wait();
        v += value[(t + 1) % active];
        if (r == 0 && t >= 64) {
            ready[0].arrive_and_drop();
            return;
        }
        ready[0].arrive_and_wait();
        active = 64;
    }
    out[blockIdx.x * kTileInts + t] = v;
}

__global__ void read_before_wait(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int stage[2][kTileInts];
    __shared__ Barrier ready[2];
    auto block = cg::this_thread_block();
    init_barriers(block, ready);
    const int* tile = in + blockIdx.x * tiles * kTileInts;
    copy_tile(block, stage[0], tile, ready[0]);
    int sum = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        sum += static_cast<int>(t + 1) * stage[t % 2][kTileInts - 1 - threadIdx.x];  // marker: early read
        ready[t % 2].arrive_and_wait();
        if (t + 1 < tiles) copy_tile(block, stage[(t + 1) % 2], tile + (t + 1) * kTileInts, ready[(t + 1) % 2]);
    }
    out[blockIdx.x * kTileInts + threadIdx.x] = sum;
}

__global__ void prefetch_before_wait(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int stage[2][kTileInts];
    __shared__ Barrier ready[2];
    auto block = cg::this_thread_block();
    init_barriers(block, ready);
    const int* tile = in + blockIdx.x * tiles * kTileInts;
    copy_tile(block, stage[0], tile, ready[0]);
    int sum = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        if (t + 1 < tiles)
            cuda::memcpy_async(block, stage[(t + 1) % 2], tile + (t + 1) * kTileInts, sizeof(int) * kTileInts,  // marker: early prefetch
                               ready[(t + 1) % 2]);
        ready[t % 2].arrive_and_wait();
        sum += static_cast<int>(t + 1) * stage[t % 2][kTileInts - 1 - threadIdx.x];  // marker: late read
    }
    out[blockIdx.x * kTileInts + threadIdx.x] = sum;
}

// A host program that runs the two-barrier loop on a GPU.
int main()
{
    const unsigned blocks = 2, tiles = 5;
    std::vector<int> in(blocks * tiles * kTileInts);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 97) - 48;
    int *d_in, *d_out;
    cudaMalloc(&d_in, in.size() * sizeof(int));
    cudaMalloc(&d_out, blocks * kTileInts * sizeof(int));
    cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice);
    swapped_barriers<<<blocks, kTileInts>>>(d_in, d_out, tiles);
    std::vector<int> out(blocks * kTileInts);
    cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("out[0] = %d\n", out[0]);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
