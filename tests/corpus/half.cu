// Half precision: conversions and arithmetic on __half.
//
// Idea: convert floats to __half (round to nearest even), add and multiply
//   them as __half, and convert back to float.
// Changed: nothing.
// Expected effect: sum[i] = half(half(a[i]) + half(b[i])),
//   product[i] = half(half(a[i]) * half(b[i])), each rounded to nearest even,
//   overflowing to infinity past the largest half.
// Preconditions: a, b, sum and product have n elements.
#include <cuda_fp16.h>

__global__ void half_arithmetic(const float* __restrict__ a, const float* __restrict__ b, unsigned n, float* sum,
                                float* product)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half ha = __float2half(a[i]);
    __half hb = __float2half(b[i]);
    sum[i] = __half2float(__hadd(ha, hb));
    product[i] = __half2float(ha * hb);
}
