// Method v19: a lookup through a __constant__ table with a warp-uniform index
// (NVIDIA, "Optimizing CUDA": constant memory).
//
// Idea: a polynomial of degree 31 in x = in[i], in Horner's form, its
//   coefficients read from constant memory (coefficients.cuh): coefficient k
//   at step k, the loop counter, so every lane of a warp reads the same entry.
// Changed: the constant-memory pair's first kernel; v20 changes the index only.
// Expected effect: each lookup is one address a warp, which the constant cache
//   serves to all 32 lanes at once (1-way); ptxas may even read the entry as
//   an operand of the FMA. Memory-bound at 8 bytes an element.
// Preconditions: `in` and `out` hold n elements.
#pragma once
#include "kernels/method/coefficients.cuh"

namespace warplab::method {

template <class T>
__global__ void method_constant_uniform(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const T x = in[i];
        T p = 0;
#pragma unroll
        for (unsigned k = 0; k < kCoefficients; ++k) {
            p = p * x + kTable.c[k];
        }
        out[i] = p;
    }
}

}  // namespace warplab::method
