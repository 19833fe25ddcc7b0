// Method v7: v5 with its data movement commented out, the computation alone.
//
// Idea: x and y come from the index instead of memory; the FMA stays, and its
//   result is stored only when it equals `never` (-1 at run time: i and n - i
//   are never negative, so 2.5 x + y is not), a condition the compiler cannot
//   decide.
// Changed from v5: no load; the store under the run-time false condition.
// Expected effect: a small part of v5's time: two conversions, an FMA and a
//   compare a thread. On so short a kernel the launch itself is a visible part
//   of what is timed (Filipovič: "be aware of execution overhead in the case of
//   fast kernels").
// Preconditions: `out` holds n elements; `never` is negative.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_saxpy_compute_only(const T* __restrict__ in, T* __restrict__ out, unsigned n, T never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const T r = 2.5f * T(i) + T(n - i);
        if (r == never) out[i] = r;
    }
}

}  // namespace warplab::method
