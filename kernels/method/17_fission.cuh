// Method v17: v16 split in two (Filipovič, "Code Optimizations": kernel
// fission, "to release registers").
//
// Idea: the first kernel runs chain a and stores it; the second runs chain b
//   and multiplies it into what the first stored. Each holds 32 accumulators,
//   not 64, so each needs about v1's registers, and more blocks fit an SM.
// Changed from v16: one chain a kernel; a(x) passes through global memory
//   (in `out`), and x is read twice.
// Expected effect: higher occupancy for each half, paid for with a second
//   launch and more traffic (x twice, a(x) written and read back: 5 floats an
//   element against v16's 2). Faster than v16 only if its occupancy was what
//   held it back. The results are v16's bit for bit: a(x) is a float in
//   both, and a · b rounds once in both.
// Preconditions: `in` and `out` hold n elements; the second kernel runs after
//   the first on the same arguments.
#pragma once
#include "kernels/method/chain.cuh"

namespace warplab::method {

template <class T>
__global__ void method_fission(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = chain(in[i], 0.75f);
    }
}

template <class T>
__global__ void method_fission_second(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = out[i] * chain(in[i], 0.5f);
    }
}

}  // namespace warplab::method
