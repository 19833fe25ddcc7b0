// E13, a solution: blend's memory-only and compute-only variants.
#pragma once

namespace exercise {

constexpr unsigned kSteps = 64;

__global__ void blend(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float a = x[i], h = 0.5f * y[i];
        float r = a;
        for (unsigned k = 0; k < kSteps; ++k) r = fmaf(r, h, a);
        out[i] = r;
    }
}

// Both loads and the store; the two words joined by an integer XOR, the
// cheapest use of both that is no floating-point arithmetic.
__global__ void blend_memory_only(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __uint_as_float(__float_as_uint(x[i]) ^ __float_as_uint(y[i]));
}

// a and h from the index, in blend's ranges ([0, 1) and [0, 0.5)); the store
// waits for a result equal to `never`: a sum of non-negative terms is never -1.
// The condition reads the result, so the compiler cannot move the loop into it.
__global__ void blend_compute_only(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n,
                                   float never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float a = (i & 1023) * (1.0f / 1024), h = 0.5f * ((i >> 10 & 1023) * (1.0f / 1024));
        float r = a;
        for (unsigned k = 0; k < kSteps; ++k) r = fmaf(r, h, a);
        if (r == never) out[i] = r;
    }
}

}  // namespace exercise
