// Known wrong (E10): a pad word after every chunk, slot(e) = e + e / STRIDE:
// the chunk read is conflict-free, the staging stores are not.
//
// Expected verdict: `correct` and `predictions` pass; `conflict_free` fails
// at stride 8 in step 0: a warp stores 32 consecutive elements e (a multiple
// of 8 first), slot = e + e/8 puts lane x at base + x + x/8: lanes 0-7 on
// 0-7, 8-15 on 9-16, 16-23 on 18-25, 24-31 on 27-34, and 32, 33, 34 fall
// on banks 0, 1, 2 again: "a shared store by 32 lanes of warp 0 is 2-way
// bank-conflicted (2 wavefronts, ideal 1)". (The read: slot 9l + k, and 9
// is odd: 32 banks.) Score 7/10.
#pragma once

namespace exercise {

template <unsigned STRIDE>
__device__ unsigned slot(unsigned e)
{
    return e + e / STRIDE;  // WRONG: fixes the read, breaks the staging
}

template <unsigned BLOCK, unsigned STRIDE>
__global__ void chunk_sums(const float* __restrict__ in, float* out, unsigned chunks)
{
    constexpr unsigned kStaged = BLOCK * STRIDE;
    __shared__ float staged[kStaged + kStaged / STRIDE];  // one pad word a chunk

    const unsigned tid = threadIdx.x;
    const unsigned long long first = static_cast<unsigned long long>(blockIdx.x) * kStaged;
    const unsigned long long total = static_cast<unsigned long long>(chunks) * STRIDE;
    for (unsigned j = 0; j < STRIDE; ++j) {  // coalesced: lane tid loads element j*BLOCK + tid
        const unsigned e = j * BLOCK + tid;
        staged[slot<STRIDE>(e)] = first + e < total ? in[first + e] : 0.0f;
    }
    __syncthreads();

    float sum = 0.0f;
    for (unsigned k = 0; k < STRIDE; ++k) sum += staged[slot<STRIDE>(tid * STRIDE + k)];

    const unsigned chunk = blockIdx.x * BLOCK + tid;
    if (chunk < chunks) out[chunk] = sum;
}

}  // namespace exercise
