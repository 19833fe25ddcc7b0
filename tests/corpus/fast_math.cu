// Fast single-precision intrinsics: __expf, rsqrtf, __fdividef, and
// __float_as_int / __int_as_float.
//
// Idea: each thread evaluates every intrinsic on its input; the host checks
//   each result against a double-precision reference within the error bound
//   the CUDA C++ Programming Guide documents for it.
// Changed: nothing.
// Expected effect: results within the documented bounds; the bit casts
//   exact.
// Preconditions: x, y and r have n elements; r is positive; y is in the
//   range where __fdividef keeps its bound.
#include "layout.h"

using namespace corpus;

__global__ void fast_math(const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ r,
                          unsigned n, float* rows)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    rows[kExp * n + i] = __expf(x[i]);
    rows[kRsqrt * n + i] = rsqrtf(r[i]);
    rows[kDivide * n + i] = __fdividef(x[i], y[i]);
    rows[kSignFlip * n + i] = __int_as_float(__float_as_int(x[i]) ^ 0x80000000);
}
