// Global-memory races: kernels written as public code writes them, correct
// ones that must run without a word and faulty ones that must be named.
//
// Correct: NVIDIA's threadfence reduction (the last block, found by an atomic
// counter after __threadfence(), adds the partials), a grid-stride loop, a
// histogram of global atomics, a producer/consumer flag with fences on both
// sides, the same with cuda::atomic_ref release/acquire, a grid-synchronised
// two-phase kernel, a neighbour shift run twice from the host (the launch
// boundary orders it), a block that shares global memory through
// __syncthreads(), and a BFS-style 'not done' flag every thread may set.
// Faulty: eight warps adding to out[0] with a plain +=, a block reading its
// neighbour's output in the same launch, a flag set without __threadfence(),
// and threads of one block meeting in global memory without __syncthreads().
#include <cooperative_groups.h>
#include <cuda/atomic>

namespace cg = cooperative_groups;

// ---- correct ----

__device__ unsigned int retirement_count = 0;

// The block's sum of its threads' values, in shared memory (blockDim.x a power of two).
template <unsigned BLOCK> __device__ float block_sum(float v)
{
    __shared__ float sdata[BLOCK];
    sdata[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    const float total = sdata[0];
    __syncthreads();  // sdata is reused by the next call
    return total;
}

// One pass: each block writes its partial sum, and the last block to finish
// (the one whose atomicInc saw gridDim.x - 1) adds the partials.
template <unsigned BLOCK> __global__ void threadfence_reduction(const float* in, float* partial, float* result, unsigned n)
{
    __shared__ bool am_last;
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    const float sum = block_sum<BLOCK>(i < n ? in[i] : 0.0f);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();  // the partial is visible to every block before the count says so
        const unsigned ticket = atomicInc(&retirement_count, gridDim.x);
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (am_last) {
        float v = 0.0f;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) v += partial[b];
        v = block_sum<BLOCK>(v);
        if (threadIdx.x == 0) {
            result[0] = v;
            retirement_count = 0;  // for the next launch
        }
    }
}
template __global__ void threadfence_reduction<64>(const float*, float*, float*, unsigned);

__global__ void saxpy_grid_stride(float a, const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

__global__ void histogram_atomic(const unsigned char* in, unsigned* bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&bins[in[i]], 1u);
}

// Block 0 produces, every other block waits for its flag, then reads.
__global__ void flag_with_fences(const int* in, int* data, volatile int* ready, int* out, int n)
{
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = 3 * in[i];
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();  // data before the flag
            *ready = 1;
        }
        return;
    }
    if (threadIdx.x == 0) {
        while (*ready == 0) {
        }
        __threadfence();  // the flag before the data
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[(blockIdx.x - 1) * n + i] = data[i] + 1;
}

// The same with libcu++'s release store and acquire load.
__global__ void flag_release_acquire(const int* in, int* data, int* ready, int* out, int n)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(*ready);
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = 3 * in[i];
        __syncthreads();
        if (threadIdx.x == 0) flag.store(1, cuda::memory_order_release);
        return;
    }
    if (threadIdx.x == 0)
        while (flag.load(cuda::memory_order_acquire) == 0) {
        }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[(blockIdx.x - 1) * n + i] = data[i] + 1;
}

// Phase 1 writes a[i]; after grid.sync(), phase 2 reads the element one block further on.
__global__ void two_phases(const int* in, int* a, int* b, int n)
{
    cg::grid_group grid = cg::this_grid();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = in[i] * in[i];
    grid.sync();
    if (i < n) b[i] = a[(i + blockDim.x) % n];
}

// out[i] = in[(i + blockDim.x) % n]: run twice from the host, in and out swapped.
__global__ void shift_by_block(const int* in, int* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(i + blockDim.x) % n];
}

// A block reverses its piece of `data` in place, through global memory.
__global__ void reverse_in_block(int* data)
{
    int* piece = data + blockIdx.x * blockDim.x;
    const int v = piece[threadIdx.x];
    __syncthreads();  // every read before any write
    piece[blockDim.x - 1 - threadIdx.x] = v;
}

// Rodinia-style BFS step: every thread that finds work sets the 'not done' flag.
__global__ void set_not_done(const int* work, int* not_done, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && work[i] != 0) *not_done = 1;  // marker: same-value flag
}

// Every lane of a block stores to the block's element: one value for all, or each its own thread index.
__global__ void store_one_element(int* out, int same)
{
    out[blockIdx.x] = same ? 7 : threadIdx.x;  // marker: one element stored
}

// ---- faulty ----

// Eight warps: lane 0 of each adds its warp's sum to out[0] with a plain +=.
__global__ void warp_sums_plain_add(const float* in, float* out)
{
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % warpSize == 0) out[0] += v;  // marker: plain add
}

// Each block writes its piece, then reads the next block's piece: no block waits for another.
__global__ void read_neighbour_output(const int* in, int* out, int* sums, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2 * in[i];  // marker: neighbour write
    sums[i] = out[(i + blockDim.x) % n] + 1;  // marker: neighbour read
}

// As flag_with_fences, but the producer sets the flag with no __threadfence().
__global__ void flag_without_fence(const int* in, int* data, volatile int* ready, int* out, int n)
{
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = 3 * in[i];  // marker: unfenced write
        __syncthreads();
        if (threadIdx.x == 0) *ready = 1;
        return;
    }
    if (threadIdx.x == 0) {
        while (*ready == 0) {
        }
        __threadfence();
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[(blockIdx.x - 1) * n + i] = data[i] + 1;  // marker: flagged read
}

// reverse_in_block without its __syncthreads().
__global__ void reverse_in_block_unsynced(int* data)
{
    int* piece = data + blockIdx.x * blockDim.x;
    const int v = piece[threadIdx.x];  // marker: unsynced read
    piece[blockDim.x - 1 - threadIdx.x] = v;  // marker: unsynced write
}

// Every lane of the warp reads word[0]; lane 0 then writes it, with no
// __syncwarp() between: under independent thread scheduling the other lanes'
// reads are not ordered before the write.
__global__ void broadcast_read_then_write(int* word, int* out)
{
    const int v = word[0];  // marker: broadcast read
    out[threadIdx.x] = v;
    if (threadIdx.x == 0) word[0] = v + 1;  // marker: write after broadcast
}
