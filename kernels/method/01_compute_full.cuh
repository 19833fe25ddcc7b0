// Method v1: the compute-heavy kernel, whole (Filipovič, "Code Optimizations":
// searching for bottlenecks).
//
// Idea: out[i] = chain(in[i]): one float read, about a thousand FP32
//   operations in registers (chain.cuh), one float written.
// Changed: the starting point of the bottleneck search; its memory-only (v2),
//   compute-only (v3) and occupancy-guarded (v4) variants are timed beside it.
// Expected effect: compute-bound: the compute-only variant takes about as long
//   as this kernel, the memory-only variant far less. The 32 accumulators hold
//   registers, so fewer blocks fit an SM than for a plain copy.
// Preconditions: `in` and `out` hold n elements; `never` is unused (every
//   variant of the search takes the same arguments).
#pragma once
#include "kernels/method/chain.cuh"

namespace warplab::method {

template <class T>
__global__ void method_compute_full(const T* __restrict__ in, T* __restrict__ out, unsigned n, T never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = chain(in[i]);
    }
}

}  // namespace warplab::method
