// Method v14: two kernels that pass an intermediate array through global
// memory (Filipovič, "Code Optimizations": kernel fusion).
//
// Idea: the squared difference (x - y)² of two arrays in two steps, each its
//   own kernel, as a pipeline of library calls would run it: the first stores
//   d = x - y, the second reads d back and stores d². Between the launches
//   the intermediate lives in global memory (in `out`, squared in place).
// Changed: the first of the fusion pair; v15 does both steps in one kernel.
// Expected effect: memory-bound: five floats move an element (x, y and d
//   read; d and d² written: 20 bytes), and there are two launches.
// Preconditions: `in` holds 2n elements (x, then y), `out` n; the second
//   kernel runs after the first on the same arguments.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_unfused(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] - in[n + i];
    }
}

template <class T>
__global__ void method_unfused_square(const T* __restrict__ in, T* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const T d = out[i];
        out[i] = d * d;
    }
}

}  // namespace warplab::method
