// Method v12: a float polynomial with one stray double literal (NVIDIA,
// "Optimizing CUDA": "use the f suffix on floating-point literals").
//
// Idea: 1 + x + x²/2 + x³/6 in Horner's form, every constant a float except
//   the middle 1.0: C++ then promotes that sum, and everything after it, to
//   double, and converts the result back to float at the store.
// Changed: the first of the literal pair; v13 writes 1.0f.
// Expected effect: conversions and FP64 instructions in the PTX (cvt.f64.f32,
//   add.f64, fma.rn.f64, cvt.rn.f32.f64), slower where FP64 is slow, and a
//   little more accurate: the last steps are rounded in double, then once to
//   float: within 1.5 ulp for x in [1, 2), where v13 is within 2.
// Preconditions: `in` and `out` hold n elements.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_double_literal(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const T x = in[i];
        out[i] = ((x * (1.0f / 6) + 0.5f) * x + 1.0) * x + 1.0f;
    }
}

}  // namespace warplab::method
