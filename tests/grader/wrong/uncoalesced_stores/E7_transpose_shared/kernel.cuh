// Known wrong (E7): a right transpose without shared memory: each thread
// writes out[c][r] = in[r][c] directly.
//
// Expected verdict: `correct` passes; `coalesced_stores` fails at step 0 (the
// kernel has no barrier): lane tx of warp 0 writes out[tx][j], and the rows of
// `out` are rows = 64 floats = 256 bytes apart, so the 32 lanes touch 32
// sectors where their 128 bytes need 4: "a global store by 32 lanes of warp 0
// touches 32 sectors per request; its bytes fit in 4".
#pragma once

namespace exercise {

template <unsigned TILE, unsigned ROWS>
__global__ void transpose(const float* __restrict__ in, float* out, unsigned rows, unsigned cols)
{
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    for (unsigned j = 0; j < TILE; j += ROWS)
        if (y + j < rows && x < cols) out[x * rows + y + j] = in[(y + j) * cols + x];  // WRONG: strided stores
}

}  // namespace exercise
