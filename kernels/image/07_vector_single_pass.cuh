// Image v7: 16-byte loads, eight rows in flight a thread, and one pass (what
// CUB's DeviceReduce does for a transform-reduce, and the reduction lab's v9).
//
// Idea: v6 reads one 4-byte pixel per load and leaves 8160 partials to two
//   more launches. Read four pixels per load instead (one 16-byte uint4, a
//   warp's load 512 contiguous bytes of a row), issue all of a thread's loads
//   before adding any, and finish in the same launch: the last group to be
//   done, counted with an atomic, adds every group's partial.
// Changed from v6: a BX×BY group covers a (4·BX)×(8·BY) tile: each thread
//   loads four adjacent pixels in each of eight rows BY apart (a 128×64 tile
//   at 32×8 threads: 15×17 groups for 1920×1080); the tree is shuffles in
//   each warp plus one shared word per warp; thread 0 writes the tile's
//   partial and counts the group in; the last group sums the partials into
//   partials[groups] and resets the count. No later pass.
// Expected effect: a quarter of the load instructions and 32 times fewer
//   groups than v6, and one launch instead of three: the launches' gaps, not
//   the bytes, are most of v6's time at 1080p (8.3 MB at 3.35 TB/s is 2.5 µs
//   of its 14). Above CUB, which takes two launches.
// Preconditions: BX·BY a multiple of 32, up to 1024; blockDim == (BX, BY);
//   gridDim == (ceil(width / (4·BX)), ceil(height / (8·BY))); partials holds
//   gridDim.x·gridDim.y + 2 floats, the last read as an unsigned count that
//   is 0 before the launch (the last group sets it back to 0). The 16-byte
//   loads need width % 4 == 0 and a 16-byte aligned image; other widths
//   load pixel by pixel.
#pragma once
#include <cuda/atomic>

#include "kernels/image/03_unrolled_tail.cuh"

namespace warplab::image {

inline constexpr unsigned kRowsPerThread = 8;

// Pixel p's RGBA8 as one 32-bit word (the layout of a 16-byte load's words).
__device__ inline unsigned pixel_word(uchar4 p) { return p.x | (p.y << 8) | (p.z << 16) | (unsigned(p.w) << 24); }
__device__ inline float word_luminance(unsigned w)
{
    return luminance(make_uchar4(w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff, w >> 24));
}

// Pixels x .. x + 3 of row y (x a multiple of 4), each 0 outside the image:
// one 16-byte load where every row starts 16-byte aligned, else four.
__device__ inline uint4 four_pixels(const uchar4* __restrict__ image, unsigned width, unsigned height, unsigned x, unsigned y)
{
    if (x >= width || y >= height) return make_uint4(0, 0, 0, 0);
    const uchar4* at = image + y * width + x;
    if (width % 4 == 0) return *reinterpret_cast<const uint4*>(at);
    auto word = [&](unsigned k) { return x + k < width ? pixel_word(at[k]) : 0u; };
    return make_uint4(word(0), word(1), word(2), word(3));
}

// The group's sum of v, in thread tid == 0: shuffles in each warp, one
// shared word per warp, then warp 0's shuffles.
template <unsigned THREADS>
__device__ inline float group_sum(float v, unsigned tid, float* warp_sums)
{
    v = warp_tail<32>(v);
    if (tid % 32 == 0) warp_sums[tid / 32] = v;
    __syncthreads();
    if (tid < THREADS / 32) v = warp_tail<THREADS / 32>(warp_sums[tid]);
    return v;
}

template <unsigned BX, unsigned BY>
__global__ void image_vector_single_pass(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned THREADS = BX * BY;
    static_assert(THREADS % 32 == 0 && THREADS <= 1024, "v7's groups are whole warps");
    __shared__ float warp_sums[THREADS / 32];
    __shared__ bool is_last;

    // 1. Eight loads of four pixels, all issued before the first is added.
    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = (blockIdx.x * BX + threadIdx.x) * 4, y = blockIdx.y * (kRowsPerThread * BY) + threadIdx.y;
    uint4 rows[kRowsPerThread];
#pragma unroll
    for (unsigned r = 0; r < kRowsPerThread; ++r) rows[r] = four_pixels(image, width, height, x, y + r * BY);
    float sum = 0.0f;
#pragma unroll
    for (unsigned r = 0; r < kRowsPerThread; ++r)
        sum += (word_luminance(rows[r].x) + word_luminance(rows[r].y)) + (word_luminance(rows[r].z) + word_luminance(rows[r].w));

    // 2. The tile's partial, and the group counted in: the release orders the
    //    partial before the count; in the last group, the acquire (then the
    //    barrier) makes every other group's partial visible to its threads.
    const unsigned groups = gridDim.x * gridDim.y, group = blockIdx.y * gridDim.x + blockIdx.x;
    sum = group_sum<THREADS>(sum, tid, warp_sums);
    if (tid == 0) {
        partials[group] = sum;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*reinterpret_cast<unsigned*>(&partials[groups + 1]));
        is_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == groups - 1;
    }
    __syncthreads();

    // 3. The last group adds the partials in a fixed order (read from L2).
    if (is_last) {
        float total = 0.0f;
        for (unsigned g = tid; g < groups; g += THREADS) total += __ldcg(&partials[g]);
        total = group_sum<THREADS>(total, tid, warp_sums);
        if (tid == 0) {
            partials[groups] = total;
            *reinterpret_cast<unsigned*>(&partials[groups + 1]) = 0u;
        }
    }
}

}  // namespace warplab::image
