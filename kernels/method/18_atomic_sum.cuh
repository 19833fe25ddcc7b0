// Method v18: one float sum in the order atomics happen to take (NVIDIA,
// "Optimizing CUDA": "GPU results may not match CPU").
//
// Idea: every thread adds its element into one float with atomicAdd. Each
//   addition rounds, and floating-point addition is not associative, so the
//   sum depends on the order the additions reach the address: an order the
//   hardware chooses at run time, not the program.
// Changed: the non-associativity example; the CPU's loop and the reduction
//   lab's tree add the same elements in their own orders (tests/method).
// Expected effect: a sum within (n - 1)·2^-24·Σ|x| of the exact one, as any
//   order of n - 1 float additions is, but not always the same sum on a GPU;
//   on the emulator the order is its schedule's, fixed by the run's seed.
//   One address takes every atomic: slow, the serialisation timed.
// Preconditions: `in` holds n elements; `out` holds one, zero at the launch.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_atomic_sum(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(out, in[i]);
    }
}

}  // namespace warplab::method
