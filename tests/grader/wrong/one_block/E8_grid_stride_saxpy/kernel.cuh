// Known wrong (E8): right y, with coalesced loads, but only block 0 works: it
// strides by its own blockDim.x over all n elements while the other blocks
// return at once.
//
// Expected verdict: `correct` passes; `ideal_load_sectors` fails on the shape:
// at n = 10000 with 4 blocks of 128, each thread of block 0 loads 78 or 79
// elements of x and of y (10000 = 78 x 128 + 16), where its share of the grid
// is 19 or 20. Score 5/10.
#pragma once

namespace exercise {

__global__ void saxpy(float a, const float* __restrict__ x, float* y, unsigned n)
{
    if (blockIdx.x != 0) return;  // WRONG: one block does everything
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) y[i] = a * x[i] + y[i];
}

}  // namespace exercise
