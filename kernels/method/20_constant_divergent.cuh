// Method v20: the lookup of v19 with a divergent index (NVIDIA, "Optimizing
// CUDA": constant memory).
//
// Idea: v19's polynomial, each lane starting its walk through the table at its
//   own lane index: at step k, lane l reads coefficient (k + l) mod 32, so the
//   32 lanes of a warp read 32 different entries.
// Changed: the index kTable.c[k] becomes kTable.c[(k + threadIdx.x) % 32].
// Expected effect: the constant cache serves one address at a time: a warp's
//   lookup is serialised into as many reads as it has distinct addresses,
//   32-way for a full warp (as many as its active lanes for a partial one),
//   32 times v19's constant requests. The results differ from v19's (each
//   lane's polynomial is its own), the bytes moved do not.
// Preconditions: `in` and `out` hold n elements; the block a multiple of 32
//   threads, so that threadIdx.x % 32 is the lane.
#pragma once
#include "kernels/method/coefficients.cuh"

namespace warplab::method {

template <class T>
__global__ void method_constant_divergent(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const T x = in[i];
        T p = 0;
#pragma unroll
        for (unsigned k = 0; k < kCoefficients; ++k) {
            p = p * x + kTable.c[(k + threadIdx.x) % kCoefficients];
        }
        out[i] = p;
    }
}

}  // namespace warplab::method
