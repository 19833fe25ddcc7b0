// Method v10: sinf and expf, the accurate library functions (NVIDIA,
// "Optimizing CUDA": instruction throughput).
//
// Idea: out[i] = sinf(x) · expf(x) for x = in[i] in [1, 2).
// Changed: the first of the math-function trio (v11: the intrinsics; and this
//   file compiled with -use_fast_math, which turns these calls into them).
// Expected effect: within 2 ulp each (CUDA's programming guide), so a few ulp
//   for the product; each function a sequence of FMAs (range reduction and a
//   polynomial for sinf, a scaled exp2 for expf).
// Preconditions: `in` and `out` hold n elements.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_sin_exp(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = sinf(in[i]) * expf(in[i]);
    }
}

}  // namespace warplab::method
