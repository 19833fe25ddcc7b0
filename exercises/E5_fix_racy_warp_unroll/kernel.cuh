// E5: fix a racy warp-synchronous unroll (mirrors reduction v5-racy -> v5).
//
// Each block adds up the squares of its BLOCK elements, in[blockIdx.x * BLOCK ...],
// and writes the sum to out[blockIdx.x]. The tree stops at 64 partial sums and
// warp 0 finishes with Harris's 2007 unrolled tail, which assumes that the 32
// lanes of a warp run in lockstep. Since Volta they need not: the tail is a
// data race. It runs "right" on the emulator's lockstep schedule
// (build/warplab trace reduction v5-racy --schedule lockstep shows the same
// tail on a sum) and reports the race under the independent schedule.
//
// Grade it:  build/warplab grade E5        (README.md says what is checked)
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum_squares(const int* __restrict__ in, int* out, unsigned n)
{
    static_assert((BLOCK & (BLOCK - 1)) == 0 && BLOCK >= 64, "the warp tail reads sdata[tid + 32]: BLOCK >= 64");
    __shared__ int sdata[BLOCK];

    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int x = (i < n) ? in[i] : 0;
    sdata[tid] = x * x;
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid < 32) {
        // TODO: this tail is a data race: lane t reads sdata[t + 16] while lane
        // t + 16 may already have overwritten it. Make every read of a word that
        // another lane writes happen before that write, with __syncwarp(). Keep
        // it warp-level: a __syncthreads() here, inside `if (tid < 32)`, is a
        // barrier that threads 32.. never reach.
        volatile int* v = sdata;
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }

    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
