// Method v5: the memory-heavy kernel, whole: SAXPY.
//
// Idea: out[i] = 2.5 x[i] + y[i], with x the first n floats of `in` and y the
//   next n: two floats read and one written for a single FMA.
// Changed: the second kernel of the bottleneck search; its memory-only (v6)
//   and compute-only (v7) variants are timed beside it.
// Expected effect: memory-bound: the memory-only variant takes about as long
//   as this kernel, the compute-only variant a small part of it.
// Preconditions: `in` holds 2n elements, `out` n; `never` is unused.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_saxpy_full(const T* __restrict__ in, T* __restrict__ out, unsigned n, T never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.5f * in[i] + in[n + i];
    }
}

}  // namespace warplab::method
