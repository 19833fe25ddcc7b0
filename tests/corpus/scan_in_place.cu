// Inclusive scan of each block's segment, Hillis and Steele, in place: wrong.
//
// Idea: the textbook loop `x[t] += x[t - d]` on one shared array, with a
//   barrier after each step.
// Changed from scan_double_buffered.cu: one buffer instead of two.
// Expected effect: a data race. Within a step, thread t reads x[t - d] while
//   thread t - d may already have added to it; the barrier comes too late.
//   The emulator reports the race at the update.
// Preconditions: blockDim.x == kBlock.
#include "layout.h"

constexpr unsigned kBlock = corpus::kScanBlock;

__global__ void scan_in_place(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int x[kBlock];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * kBlock + t;
    x[t] = i < n ? in[i] : 0;
    __syncthreads();

    for (unsigned d = 1; d < kBlock; d *= 2) {
        if (t >= d) x[t] += x[t - d];  // RACE(scan_in_place_update)
        __syncthreads();
    }
    if (i < n) out[i] = x[t];
}
