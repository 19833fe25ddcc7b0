// Method v3: v1 with its data movement commented out, the computation alone.
//
// Idea: drop the load and the store, keep the arithmetic. The input comes
//   from the thread's index instead of memory. The result must still be
//   stored, or the compiler drops the computation: the store sits under a
//   condition that is false at run time but unknown to the compiler (the
//   result equal to `never`, a kernel argument the host sets to -1, which the
//   chain of non-negative numbers cannot reach). The condition must depend on
//   the result: under one that does not (`if (flag)`) the compiler may move
//   the whole computation inside the branch, and nothing would be timed.
// Changed from v1: x is i scaled to [0, 1) instead of in[i]; out[i] is
//   written only when the result equals `never`.
// Expected effect: the time of v1's instructions alone; no global access at
//   run time. Its registers are v1's, so its occupancy is v1's too.
// Preconditions: `out` holds n elements; `never` is a value chain() does not
//   return (the lab passes -1).
#pragma once
#include "kernels/method/chain.cuh"

namespace warplab::method {

template <class T>
__global__ void method_compute_compute_only(const T* __restrict__ in, T* __restrict__ out, unsigned n, T never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const T x = chain(T(i) * 0x1p-24f);
        if (x == never) out[i] = x;
    }
}

}  // namespace warplab::method
