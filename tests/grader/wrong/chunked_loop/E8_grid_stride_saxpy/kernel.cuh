// Known wrong (E8): right for any n, but each thread takes a contiguous chunk
// of ceil(n / threads) elements instead of striding by the grid.
//
// Expected verdict: `correct` passes; `ideal_load_sectors` fails at step 0:
// at n = 10000 with 4 x 128 = 512 threads the chunk is ceil(10000 / 512) = 20
// floats, so lane k of warp 0 first loads element 20k, at byte 80k: every
// lane in its own 32-byte sector. "a global load by 32 lanes of warp 0
// touches 32 sectors per request; its bytes fit in 4".
#pragma once

namespace exercise {

__global__ void saxpy(float a, const float* __restrict__ x, float* y, unsigned n)
{
    unsigned threads = blockDim.x * gridDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned chunk = (n + threads - 1) / threads;
    unsigned end = min(n, (t + 1) * chunk);
    for (unsigned i = t * chunk; i < end; ++i) y[i] = a * x[i] + y[i];  // WRONG: lanes 'chunk' apart
}

}  // namespace exercise
