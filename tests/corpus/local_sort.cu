// Each thread sorts its own few values in a local array.
//
// Idea: a per-thread array indexed by a loop variable the compiler cannot
//   resolve lives in local memory; an insertion sort of kSortWidth values.
// Changed: nothing.
// Expected effect: each run of kSortWidth values of the input comes back
//   sorted ascending.
// Preconditions: in and out have rows * kSortWidth elements.
#include "layout.h"

constexpr unsigned kWidth = corpus::kSortWidth;

__global__ void sort_rows(const int* __restrict__ in, int* out, unsigned rows)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    int v[kWidth];
    for (unsigned k = 0; k < kWidth; ++k) v[k] = in[row * kWidth + k];
    for (unsigned k = 1; k < kWidth; ++k) {
        int x = v[k];
        int j = static_cast<int>(k) - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = x;
    }
    for (unsigned k = 0; k < kWidth; ++k) out[row * kWidth + k] = v[k];
}
