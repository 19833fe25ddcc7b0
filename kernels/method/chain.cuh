// The method lab's computation, shared by the compute-heavy kernel and its
// compute-only variant (Filipovič, "Code Optimizations": searching for
// bottlenecks): 32 accumulators in registers, each round mixing every one with
// its neighbour, then their sum. Fully unrolled, so the PTX holds each
// operation once: 31 adds to start the accumulators, kRounds × 32 multiplies
// and 32 FMAs, 31 adds to sum them (the first term needs no add).
// 1024 FP32 operations on one loaded float: compute-heavy by far.
#pragma once

namespace warplab::method {

constexpr unsigned kAccumulators = 32, kRounds = 16;

__device__ __forceinline__ float chain(float x)
{
    float acc[kAccumulators];
#pragma unroll
    for (unsigned j = 0; j < kAccumulators; ++j) acc[j] = x + float(j) * 0.03125f;
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r)
#pragma unroll
        for (unsigned j = 0; j < kAccumulators; ++j) acc[j] = fmaf(acc[j], 0.75f, acc[(j + 1) % kAccumulators] * 0.25f);
    float sum = acc[0];
#pragma unroll
    for (unsigned j = 1; j < kAccumulators; ++j) sum += acc[j];
    return sum;
}

}  // namespace warplab::method
