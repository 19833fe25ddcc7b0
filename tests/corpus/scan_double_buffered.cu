// Inclusive scan of each block's segment, Hillis and Steele, double-buffered.
//
// Idea: at offset d (one, two, four, ...), element t becomes x[t] + x[t - d];
//   after the steps up to the block size every element holds its prefix sum.
// Changed from scan_in_place.cu: each step reads one buffer and writes the
//   other, so no thread overwrites a value another thread has still to read.
// Expected effect: the right prefix sums, no fault; one barrier per step.
// Preconditions: blockDim.x == kBlock; block b scans in[b * kBlock ...],
//   the last block possibly partly filled.
#include "layout.h"

constexpr unsigned kBlock = corpus::kScanBlock;

__global__ void scan_double_buffered(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int buffer[2][kBlock];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * kBlock + t;
    unsigned src = 0;
    buffer[src][t] = i < n ? in[i] : 0;
    __syncthreads();

    for (unsigned d = 1; d < kBlock; d *= 2) {
        unsigned dst = 1 - src;
        buffer[dst][t] = t >= d ? buffer[src][t] + buffer[src][t - d] : buffer[src][t];
        __syncthreads();
        src = dst;
    }
    if (i < n) out[i] = buffer[src][t];
}
