// Reduction v9: the fastest we could make on the H100.
//
// Idea: the kernel is a stream of loads, so feed the memory system: 128-bit
//   loads (int4/float4), four of them in flight per thread per iteration, a
//   grid of exactly one wave, a shuffle-only block reduction, and a single
//   pass: each block writes its partial sum, and the last block to finish
//   (counted with an atomic) adds the partials and writes the result.
// Changed from v8: the grid-stride loop reads int4/float4 four at a time; the
//   tree in shared memory becomes shuffles within each warp plus one shared
//   word per warp; one launch instead of one per pass.
// Expected effect: near the DRAM bandwidth at 2^28 elements; at sizes that fit
//   in L2 the single launch saves the second pass. Results are deterministic:
//   the last block adds the partials in a fixed order.
// Preconditions: BLOCK is a multiple of 32, 64..1024; g_in is 16-byte aligned;
//   g_done is zero before the first launch (the last block resets it).
#pragma once

namespace warplab::reduction {

// The 16-byte vector of four T: int4 for int, float4 for float.
template <class T> struct Vec4;
template <> struct Vec4<int> { using type = int4; };
template <> struct Vec4<float> { using type = float4; };

// Sum of `value` over the 32 lanes, in lane 0.
template <class T>
__device__ T warp_sum(T value)
{
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

// Sum of `value` over the block, in thread 0. Uses one shared word per warp.
template <unsigned BLOCK, class T>
__device__ T block_sum(T value, T* warp_sums)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_sum(value);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = (lane < BLOCK / 32) ? warp_sums[lane] : T(0);
        value = warp_sum(value);
    }
    return value;
}

template <class T>
__device__ T add_lanes(const typename Vec4<T>::type& v) { return (v.x + v.y) + (v.z + v.w); }

// Thread 0 of each block writes the block's partial sum; the last block to
// finish (counted with an atomic) adds the partials, in order, writes the
// result and resets the counter.
template <unsigned BLOCK, class T>
__device__ void add_partials_in_last_block(T sum, T* warp_sums, unsigned* is_last, T* g_partial, unsigned* g_done, T* g_out)
{
    sum = block_sum<BLOCK>(sum, warp_sums);
    if (threadIdx.x == 0) {
        g_partial[blockIdx.x] = sum;
        __threadfence();  // the partial is visible before the count says so
        is_last[0] = (atomicAdd(&g_done[0], 1u) == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last[0]) {
        __threadfence();
        T total = T(0);
        for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) total += g_partial[b];
        total = block_sum<BLOCK>(total, warp_sums);
        if (threadIdx.x == 0) {
            g_out[0] = total;
            g_done[0] = 0u;
        }
    }
}

// This thread's share of g_in[0, n): a grid-stride loop of 16-byte loads,
// four independent ones per iteration; block 0 adds the n % 4 last elements.
template <unsigned BLOCK, class T>
__device__ T sum_vector_loads(const T* __restrict__ g_in, unsigned n)
{
    using V4 = typename Vec4<T>::type;
    const V4* in4 = reinterpret_cast<const V4*>(g_in);
    const unsigned n4 = n / 4;
    const unsigned stride = BLOCK * gridDim.x;
    unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    T sum = T(0);
    for (; i + 3 * stride < n4; i += 4 * stride) {
        V4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
        sum += (add_lanes<T>(a) + add_lanes<T>(b)) + (add_lanes<T>(c) + add_lanes<T>(d));
    }
    for (; i < n4; i += stride) sum += add_lanes<T>(in4[i]);
    if (blockIdx.x == 0 && threadIdx.x < n % 4) sum += g_in[n4 * 4 + threadIdx.x];
    return sum;
}

template <unsigned BLOCK, class T>
__global__ void reduce_vector_single_pass(const T* __restrict__ g_in, T* g_partial, unsigned* g_done,
                                          T* g_out, unsigned n)
{
    static_assert(BLOCK % 32 == 0 && BLOCK >= 64 && BLOCK <= 1024, "BLOCK is a multiple of 32, 64..1024");
    __shared__ T warp_sums[BLOCK / 32];
    __shared__ unsigned is_last[1];

    // 1. Stream: four independent 16-byte loads per thread per iteration.
    const T sum = sum_vector_loads<BLOCK>(g_in, n);

    // 2. One partial per block; the last block to finish adds them.
    add_partials_in_last_block<BLOCK>(sum, warp_sums, is_last, g_partial, g_done, g_out);
}

}  // namespace warplab::reduction
