// Method v9: v8 with & and >> in place of % and / (NVIDIA, "Optimizing CUDA":
// "if n is a power of 2, (i / n) is equivalent to (i >> log2(n)) and (i % n)
// is equivalent to (i & (n - 1))").
//
// Idea: the same chain of 16 steps, h = (h & (d - 1)) · 3 + (h >> log2 d) + k;
//   log2 d is found once a thread (the position of d's one set bit).
// Changed from v8: each % is an AND with d - 1, each / a shift.
// Expected effect: the same results as v8 (d is a power of two); a few
//   integer instructions a step instead of two division sequences.
// Preconditions: `in` and `out` hold n elements; d is a power of two.
#pragma once
#include "kernels/method/08_divide_modulo.cuh"

namespace warplab::method {

template <class T>
__global__ void method_mask_shift(const T* __restrict__ in, T* __restrict__ out, unsigned n, unsigned d)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const unsigned mask = d - 1, shift = __ffs(d) - 1;
        unsigned h = i;
#pragma unroll
        for (unsigned k = 0; k < kIndexSteps; ++k) h = (h & mask) * 3 + (h >> shift) + k;
        out[i] = in[i] + T(h);
    }
}

}  // namespace warplab::method
