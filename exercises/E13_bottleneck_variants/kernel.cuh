// E13: a kernel's memory-only and compute-only variants (mirrors method v1 ->
// v2 and v3: Filipovič's search for the bottleneck).
//
// blend() below is the kernel to study: keep it as it is. Write its two
// variants, the way the lecture times a kernel's parts:
//   blend_memory_only: every global access of blend, none of its arithmetic;
//   blend_compute_only: all of blend's arithmetic, no global access at run time.
// The compiler removes what no result needs: neither variant may lose what it
// is there to time.
//
// Grade it:  build/warplab grade E13        (README.md says what is checked)
#pragma once

namespace exercise {

constexpr unsigned kSteps = 64;

// Given: out[i] = a + a·h + a·h² + ... (64 terms, by Horner), a = x[i], h = y[i] / 2.
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
    // TODO: load what blend loads and store where blend stores, without its
    // arithmetic. The loaded values must still reach the store, or the
    // compiler drops the loads.
}

__global__ void blend_compute_only(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, unsigned n,
                                   float never)
{
    // TODO: blend's arithmetic on values that do not come from memory. Keep
    // the result needed: store it only under a condition that is false at run
    // time but that the compiler cannot decide (the grader passes never = -1).
}

}  // namespace exercise
