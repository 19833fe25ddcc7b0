// E10 solution: one pad word after every 32 (slot(e) = e + e / 32).
//
// Staging stores: a warp's lanes store 32 consecutive elements j*BLOCK + tid,
// all in one run of 32 (BLOCK is a multiple of 32), so slot = e + constant:
// 32 distinct banks. Chunk read at STRIDE 8: lane l reads e = 8l + k, slot =
// 8l + k + l/4, bank 8(l % 4) + l/4 + k (mod 32): lanes 0..31 give 32
// distinct banks. At STRIDE 4 likewise (bank 4(l % 8) + l/8 + k). Without the
// pad, the read is gcd(STRIDE, 32)-way.
#pragma once

namespace exercise {

template <unsigned STRIDE>
__device__ unsigned slot(unsigned e)
{
    return e + e / 32;
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
