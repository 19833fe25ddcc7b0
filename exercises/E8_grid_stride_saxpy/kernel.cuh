// E8: grid-stride SAXPY (mirrors reduction v6 -> v7: many elements per thread).
//
// y = a x + y over n floats. The grader launches a small grid (4 blocks of 128
// threads, sometimes another) whatever n is, as one would launch one wave of
// blocks on a GPU: each thread must handle as many elements as it takes.
//
// Grade it:  build/warplab grade E8        (README.md says what is checked)
#pragma once

namespace exercise {

__global__ void saxpy(float a, const float* __restrict__ x, float* y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: one element per thread covers only the first gridDim.x * blockDim.x
    // elements. Loop, so that the grid covers any n, and keep every load
    // coalesced: in each iteration the 32 lanes of a warp must take 32
    // consecutive elements.
    if (i < n) y[i] = a * x[i] + y[i];
}

}  // namespace exercise
