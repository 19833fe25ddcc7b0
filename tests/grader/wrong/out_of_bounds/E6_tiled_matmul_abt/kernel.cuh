// Known wrong (E6): the tile loads have no bounds checks. Right when M, N and
// K are multiples of TILE; reads past the end of B otherwise.
//
// Expected verdict: `correct` fails on the first case (pattern: M = 20,
// N = 24, K = 18; TILE 16; a 2 x 2 grid). Block (0,0) stays inside: its
// largest indices are A[15 * 18 + 31] and B[15 * 18 + 31], both 301, inside
// A's 360 and B's 432 elements (it reads wrong values where a row wraps).
// Block (1,0), the next one, computes columns 16..31 of C from rows 16..31 of
// B, and B (argument 1) has 24 rows, 24 x 18 = 432 elements: in phase 0
// already, lanes tx >= 8 read B[(16 + tx) * 18 + ty], at or past B[432].
// "out-of-bounds load: argument 1[...] is outside its 432 elements", in block
// (1,0,0). (Block (0,1) reads past A too, but a launch reports its
// lowest-numbered faulty block.) Of the 6 cases the two whose sizes are
// multiples of 16 (64x64x64, 128x96x80) are right, the other 4 fault: "wrong
// on 4 of 6 cases (right on the other 2)". The traced 64x64x64 is right, and
// its tiles are loaded once a phase (8 loads per output): the property holds
// where the result is right. Score 5/10.
#pragma once

namespace exercise {

template <unsigned TILE>
__global__ void matmul_abt(const float* __restrict__ A, const float* __restrict__ B, float* C, unsigned M, unsigned N, unsigned K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < (K + TILE - 1) / TILE; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];  // WRONG: no bounds check
        Bs[ty][tx] = B[col * K + t * TILE + ty];  // WRONG: no bounds check
        __syncthreads();
        for (unsigned k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

}  // namespace exercise
