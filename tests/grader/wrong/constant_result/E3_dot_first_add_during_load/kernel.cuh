// Known wrong (E3): returns a constant: the answer of the first case.
//
// The first case is a = 1, b[i] = 300 - |i - 701| over n = 1000, whose dot
// product is the tent's sum, 9398 (apps/grader/harness/block_reduce.h).
// Block 0 writes 9398 and every other block 0, so that case passes.
//
// Expected verdict: `correct` fails on the second case (seeded random:
// n = 4096, seed 1, 8 blocks): "the dot product is 9398 (the sum of the 8
// blocks' partials)", expected the true value, which is not 9398.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__host__ __device__ unsigned dot_blocks(unsigned n)
{
    return (n + 2 * BLOCK - 1) / (2 * BLOCK);
}

template <unsigned BLOCK>
__global__ void dot_partial(const int* __restrict__, const int* __restrict__, int* partial, unsigned)
{
    if (threadIdx.x == 0) partial[blockIdx.x] = blockIdx.x == 0 ? 9398 : 0;  // WRONG: a constant
}

}  // namespace exercise
