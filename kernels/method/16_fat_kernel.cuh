// Method v16: a register-heavy kernel, before fission (Filipovič, "Code
// Optimizations": kernel fission).
//
// Idea: out[i] = a(x) · b(x), two chains of 32 accumulators each
//   (chain.cuh) advanced together round by round, so that all 64
//   accumulators are live at once: the kernel needs about twice the
//   registers of v1, and fewer blocks fit an SM.
// Changed: the first of the fission pair; v17 splits it into two kernels,
//   one chain each.
// Expected effect: compute-bound, at a low occupancy. 31 of a chain's 32
//   updates in a round read only the round before, so each warp has many
//   FMAs to issue: fewer warps may still keep the FP32 units busy.
// Preconditions: `in` and `out` hold n elements.
#pragma once
#include "kernels/method/chain.cuh"

namespace warplab::method {

template <class T>
__global__ void method_fat_kernel(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float keep[2] = {0.75f, 0.5f};
        float sums[2];
        chains(in[i], keep, sums);
        out[i] = sums[0] * sums[1];
    }
}

}  // namespace warplab::method
