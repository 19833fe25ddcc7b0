// Known wrong (E2): the load does not pad: `if (i < n) sdata[tid] = in[i];`.
// Elements past n of the last block's tile are never written, then read.
//
// Expected verdict: `correct` fails on the first case (pattern: n = 1000,
// 4 blocks of 256). Blocks 0-2 are full; block 3 holds in[768..999], 232
// elements, so sdata[232..255] are never written. At s = 128 thread tid < 128
// reads sdata[tid + 128]: threads 104..127 read sdata[232..255]:
// "read of uninitialised shared memory", in block (3,0,0). Every case with a
// partial block faults likewise; the seeded random n = 4096 (16 full blocks)
// is right: "wrong on 7 of 8 cases (right on the other 1)". Its tree, traced
// at n = 4096, is sequential addressing without bank conflicts: the property
// holds where the result is right. Score 5/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_min(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    if (i < n) sdata[tid] = in[i];  // WRONG: no padding past n
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = min(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

}  // namespace exercise
