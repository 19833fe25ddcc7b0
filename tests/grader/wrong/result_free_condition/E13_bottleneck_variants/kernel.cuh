// E13 wrong: the compute-only variant stores under `never > 0`, a condition
// that does not read the result, so nvcc moves the loop into that branch,
// which never runs: no arithmetic in the trace, compute_only fails; the
// memory-only variant is the solution's. 7/10.
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

__global__ void blend_compute_only(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n,
                                   float never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float a = (i & 1023) * (1.0f / 1024), h = 0.5f * ((i >> 10 & 1023) * (1.0f / 1024));
        float r = a;
        for (unsigned k = 0; k < kSteps; ++k) r = fmaf(r, h, a);
        if (never > 0) out[i] = r;
    }
}

}  // namespace exercise
