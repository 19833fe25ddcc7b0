// Known wrong (E4): a right, race-free sum whose warp stage mixes the two:
// the first round (offset 16) goes through shared memory with __syncwarp(),
// the last four are shuffles.
//
// Steps of block 0 (block 256): step 0 the load, steps 1-2 the tree at
// s = 128 and 64, then warp 0 (one step per warp collective): step 3 = load
// sdata[tid + 32] and the first __syncwarp(); step 4 = store sdata[tid] and
// the second __syncwarp(); ...
//
// Expected verdict: `correct` passes; `shuffle_tail` fails at step 4, the
// store between the warp's first collective (step 3) and its last:
// "step 4: a shared-memory store by 32 lanes of warp 0". Score 6/10.
#pragma once

namespace exercise {

template <unsigned BLOCK>
__global__ void block_sum(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    int sum = (i < n) ? in[i] : 0;
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        sum += sdata[tid + 32];
        __syncwarp();
        sdata[tid] = sum;  // WRONG: the warp stage writes shared memory
        __syncwarp();
        sum += sdata[tid + 16];
        for (int offset = 8; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

}  // namespace exercise
