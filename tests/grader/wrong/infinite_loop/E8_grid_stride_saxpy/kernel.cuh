// Known wrong (E8): an infinite loop: `i + stride` instead of `i += stride`,
// so i never moves and every thread updates its first element for ever.
//
// Expected verdict: the emulator's instruction budget stops the launch (a fault naming
// the thread and this loop's line, "an endless loop?"), before the harness's
// time limit (10 s) would; the grader carries on and ends with score 0/10.
#pragma once

namespace exercise {

__global__ void saxpy(float a, const float* __restrict__ x, float* y, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i + blockDim.x * gridDim.x) {  // WRONG: +=
        y[i] = a * x[i] + y[i];
    }
}

}  // namespace exercise
