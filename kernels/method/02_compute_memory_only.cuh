// Method v2: v1 with its computation commented out, the memory alone.
//
// Idea: keep every global access of v1 and drop the arithmetic. The loaded
//   value must still be used, or the compiler drops the load as well: it is
//   stored, so the same bytes are read and written as in v1.
// Changed from v1: out[i] = in[i]; chain() is gone.
// Expected effect: the time of v1's data movement alone. Without the
//   accumulators the kernel needs few registers, so more blocks fit an SM than
//   v1's: the occupancy changed with the code (v4 restores it).
// Preconditions: `in` and `out` hold n elements.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_compute_memory_only(const T* __restrict__ in, T* __restrict__ out, unsigned n, T never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

}  // namespace warplab::method
