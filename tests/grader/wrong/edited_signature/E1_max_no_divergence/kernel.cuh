// Known wrong (E1): a right tree, but the kernel's parameters were edited
// (the result pointer became a float*, and a parameter was added). The
// grader calls block_max<BLOCK>(const int*, int*, unsigned): the generated
// call does not compile.
//
// Expected verdict: every check fails with "not run: the kernel does not
// compile"; the report quotes nvcc ("no instance of function template
// "exercise::block_max" matches the required type") and the hint names the
// signature to keep. Score 0/10.
#pragma once
#include <climits>

namespace exercise {

template <unsigned BLOCK>
__global__ void block_max(const int* __restrict__ in, float* out, unsigned n, unsigned stride)  // WRONG
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i * stride] : INT_MIN;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = max(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = static_cast<float>(sdata[0]);
}

}  // namespace exercise
