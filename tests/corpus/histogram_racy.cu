// Histogram of bytes with a plain increment of the shared bin: wrong.
//
// Idea: the block-private histogram of histogram.cu, written as a student
//   might first write it, with `local[v] += 1` instead of atomicAdd.
// Changed from histogram.cu: the shared-memory update is a load and a store,
//   not one atomic read-modify-write.
// Expected effect: two threads that see the same byte both load the old
//   count and one increment is lost; the emulator reports the data race at
//   the increment.
// Preconditions: as histogram.cu.
#include "layout.h"

using corpus::kBins;

__global__ void histogram_racy(const unsigned char* __restrict__ in, unsigned n, unsigned* bins)
{
    __shared__ unsigned local[kBins];
    for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();

    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        local[in[i]] += 1;  // RACE(histogram_increment)
    __syncthreads();

    for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}
