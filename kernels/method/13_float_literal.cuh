// Method v13: v12 with the f suffix.
//
// Idea: the same polynomial with 1.0f: all float, three FP32 FMAs.
// Changed from v12: 1.0 → 1.0f.
// Expected effect: no conversion and no FP64 instruction; within 2 ulp of the
//   exact polynomial for x in [1, 2), where v12 is within 1.5.
// Preconditions: `in` and `out` hold n elements.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_float_literal(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const T x = in[i];
        out[i] = ((x * (1.0f / 6) + 0.5f) * x + 1.0f) * x + 1.0f;
    }
}

}  // namespace warplab::method
