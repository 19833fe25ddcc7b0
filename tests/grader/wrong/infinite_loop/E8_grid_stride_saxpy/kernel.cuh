// Known wrong (E8): an infinite loop: `i + stride` instead of `i += stride`,
// so i never moves and every thread updates its first element for ever.
//
// Expected verdict: the harness is stopped at E8's time limit (10 s): every
// check fails with "not run: time limit exceeded: stopped after 10 s", and
// the grader itself carries on and ends normally with score 0/10.
#pragma once

namespace exercise {

__global__ void saxpy(float a, const float* __restrict__ x, float* y, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i + blockDim.x * gridDim.x) {  // WRONG: +=
        y[i] = a * x[i] + y[i];
    }
}

}  // namespace exercise
