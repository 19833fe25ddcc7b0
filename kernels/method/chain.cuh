// The method lab's computation, shared by the compute-heavy kernel, its
// compute-only variant and the fission pair (Filipovič, "Code Optimizations":
// searching for bottlenecks; kernel fission): chains of 32 accumulators in
// registers, each round mixing every accumulator with its neighbour, then
// each chain's sum. Fully unrolled, so the PTX holds each operation once: for
// one chain, 31 adds to start the accumulators, kRounds × 32 multiplies and 32
// FMAs, 31 adds to sum them (the first term needs no add). 1024 FP32
// operations a chain on one loaded float: compute-heavy by far.
#pragma once

namespace warplab::method {

constexpr unsigned kAccumulators = 32, kRounds = 16;

// Chains independent chains started from x, advanced together round by round
// (every chain's round r before any chain's round r + 1, so all their
// accumulators are live at once); chain c keeps keep[c] of each accumulator
// and takes 1 - keep[c] of its neighbour. sums[c]: chain c's sum.
template <unsigned Chains>
__device__ __forceinline__ void chains(float x, const float (&keep)[Chains], float (&sums)[Chains])
{
    float acc[Chains][kAccumulators];
#pragma unroll
    for (unsigned c = 0; c < Chains; ++c)
#pragma unroll
        for (unsigned j = 0; j < kAccumulators; ++j) acc[c][j] = x + float(j) * 0.03125f;
#pragma unroll
    for (unsigned r = 0; r < kRounds; ++r)
#pragma unroll
        for (unsigned j = 0; j < kAccumulators; ++j)
#pragma unroll
            for (unsigned c = 0; c < Chains; ++c)
                acc[c][j] = fmaf(acc[c][j], keep[c], acc[c][(j + 1) % kAccumulators] * (1.0f - keep[c]));
#pragma unroll
    for (unsigned c = 0; c < Chains; ++c) {
        sums[c] = acc[c][0];
#pragma unroll
        for (unsigned j = 1; j < kAccumulators; ++j) sums[c] += acc[c][j];
    }
}

// One chain: the compute-heavy kernel's keeps three quarters.
__device__ __forceinline__ float chain(float x, float keep = 0.75f)
{
    const float keeps[1] = {keep};
    float sum[1];
    chains(x, keeps, sum);
    return sum[0];
}

}  // namespace warplab::method
