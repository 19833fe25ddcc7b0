// Known wrong (E10): the plain layout, slot(e) = e: right sums, and the
// chunk read STRIDE words apart across lanes.
//
// Expected verdict: `correct` and `predictions` pass; `conflict_free` fails
// at stride 8: lane l reads word 8l + k, in bank 8(l % 4) + k, so lanes l,
// l + 4, ..., l + 28 (8 of them) want 8 distinct words of one bank: "a
// shared load by 32 lanes of warp 0 is
// 8-way bank-conflicted (8 wavefronts, ideal 1)", in step 1 (after the
// staging's barrier). Score 7/10.
#pragma once

namespace exercise {

template <unsigned STRIDE>
__device__ unsigned slot(unsigned e)
{
    return e;  // WRONG: lanes STRIDE words apart
}

template <unsigned BLOCK, unsigned STRIDE>
__global__ void chunk_sums(const float* __restrict__ in, float* out, unsigned chunks)
{
    constexpr unsigned kStaged = BLOCK * STRIDE;
    __shared__ float staged[kStaged + kStaged / 32];  // room for one pad word every 32

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
