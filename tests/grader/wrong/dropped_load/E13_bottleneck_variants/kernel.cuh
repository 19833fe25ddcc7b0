// E13 wrong: the memory-only variant stores x[i] alone, so nvcc drops the
// load of y[i], which no store needs: memory_only fails (one load a thread,
// not two); the compute-only variant is the solution's. 7/10.
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

__global__ void blend_memory_only(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float b = y[i];
        (void)b;
        out[i] = x[i];
    }
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
