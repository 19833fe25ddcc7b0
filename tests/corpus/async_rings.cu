// Tile rings filled asynchronously, as Ampere-era SGEMM kernels and the
// cooperative-groups samples write them.
//
// Idea: block b walks its `tiles` tiles of 128 ints; thread i adds
//   (t + 1) * tile_t[127 - i] (a value another thread copied).
// Expected effect: out[128 b + i] = sum over t of (t + 1) * tile_t[127 - i].
// Preconditions: blockDim.x == 128; in holds gridDim.x * tiles * 128 ints.
//
// primitive_ring: a ring of kStages stages through the pipeline primitives
//   (__pipeline_memcpy_async, commit, wait_prior(kStages - 2)) and
//   __syncthreads(), the loop of the SGEMM tutorials' cp.async kernels.
// kShort (wrong): waits for one group too few, wait_prior(kStages - 1), and
//   reads a stage whose copy has not landed.
// cg_double_buffer: cooperative_groups::memcpy_async into two buffers and
//   cooperative_groups::wait_prior<1>, as the CUDA samples' globalToShmemAsyncCopy does.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline_primitives.h>

namespace cg = cooperative_groups;

constexpr unsigned kRingInts = 128;

template <unsigned kStages, bool kShort = false>
__global__ void primitive_ring(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int ring[kStages][kRingInts];
    const int* mine = in + blockIdx.x * tiles * kRingInts + threadIdx.x;
    // Fill kStages - 1 stages; each a group, empty past the last tile.
    for (unsigned s = 0; s + 1 < kStages; ++s) {
        if (s < tiles) __pipeline_memcpy_async(&ring[s][threadIdx.x], mine + s * kRingInts, sizeof(int));
        __pipeline_commit();
    }
    int sum = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        __pipeline_wait_prior(kShort ? kStages - 1 : kStages - 2);  // tile t's group has landed
        __syncthreads();                     // ... for every thread, and every thread is done with tile t - 1
        const unsigned next = t + kStages - 1;
        if (next < tiles) __pipeline_memcpy_async(&ring[next % kStages][threadIdx.x], mine + next * kRingInts, sizeof(int));
        __pipeline_commit();
        sum += static_cast<int>(t + 1) * ring[t % kStages][kRingInts - 1 - threadIdx.x];  // marker: ring read
    }
    out[blockIdx.x * kRingInts + threadIdx.x] = sum;
}
template __global__ void primitive_ring<2>(const int*, int*, unsigned);
template __global__ void primitive_ring<3>(const int*, int*, unsigned);
template __global__ void primitive_ring<4>(const int*, int*, unsigned);
template __global__ void primitive_ring<3, true>(const int*, int*, unsigned);

__global__ void cg_double_buffer(const int* in, int* out, unsigned tiles)
{
    __shared__ alignas(16) int buffer[2][kRingInts];
    auto block = cg::this_thread_block();
    const int* tile = in + blockIdx.x * tiles * kRingInts;
    cg::memcpy_async(block, buffer[0], tile, sizeof(int) * kRingInts);
    int sum = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) {
            cg::memcpy_async(block, buffer[(t + 1) % 2], tile + (t + 1) * kRingInts, sizeof(int) * kRingInts);
            cg::wait_prior<1>(block);  // all but the newest copy have landed, for the whole block
        } else {
            cg::wait(block);
        }
        sum += static_cast<int>(t + 1) * buffer[t % 2][kRingInts - 1 - threadIdx.x];
        block.sync();  // every thread is done with this buffer before the copy after next refills it
    }
    out[blockIdx.x * kRingInts + threadIdx.x] = sum;
}
