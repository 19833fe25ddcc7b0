// E13 right, written differently: the memory-only variant joins its loads
// with one float add (allowed: at most an eighth of blend's arithmetic), the
// compute-only one makes a from a scaled index and h from the thread, loops in
// a while, and stores when its result is below never (-1): never, at run time.
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
    if (i >= n) return;
    out[i] = x[i] + y[i];
}

__global__ void blend_compute_only(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n,
                                   float never)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float a = float(i % 4096) / 4096.0f, h = float(threadIdx.x) / 512.0f;
    float r = a;
    unsigned k = 0;
    while (k++ < kSteps) r = fmaf(r, h, a);
    if (r < never) out[i] = r;
}

}  // namespace exercise
