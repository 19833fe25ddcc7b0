// Method v8: / and % by a power of two the compiler cannot see (NVIDIA,
// "Optimizing CUDA": instruction throughput).
//
// Idea: a chain of 16 steps h = (h % d) · 3 + h / d + k on the thread's index,
//   with d a kernel argument. d is a power of two at run time (the lab passes
//   64), but the compiler does not know it, so each / and % is the general
//   unsigned division: no single instruction on NVIDIA's GPUs, a sequence of
//   a dozen or more (a reciprocal estimate, multiplies and corrections).
// Changed: the first of the throughput pair; v9 computes the same numbers.
// Expected effect: integer-bound; v9's & and >> do the same work in a few
//   instructions a step.
// Preconditions: `in` and `out` hold n elements; d is a power of two (v9's
//   results equal this kernel's only then).
#pragma once

namespace warplab::method {

constexpr unsigned kIndexSteps = 16;

template <class T>
__global__ void method_divide_modulo(const T* __restrict__ in, T* __restrict__ out, unsigned n, unsigned d)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned h = i;
#pragma unroll
        for (unsigned k = 0; k < kIndexSteps; ++k) h = (h % d) * 3 + h / d + k;
        out[i] = in[i] + T(h);
    }
}

}  // namespace warplab::method
