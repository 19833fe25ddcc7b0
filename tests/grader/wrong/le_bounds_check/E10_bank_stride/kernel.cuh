// Known wrong (E10): a padded staging (one pad word every 32) and a
// conflict-free chunk read, as the exercise asks, with one `<=` in the staging
// load's bounds check (index <= total).
//
// Expected verdict, by hand: block b stages elements b * BLOCK * STRIDE + e for
// e = 0 .. BLOCK * STRIDE - 1. In a whole block the largest index is total - 1,
// so `<=` changes nothing: the two main cases (512 chunks at strides 8 and 4,
// 4 blocks of 128) are right. In a partial last block some e reaches index
// total, one past the end of in: "out-of-bounds load" on the other 7 cases
// (300, 1, 31, 33 and 257 chunks of 8; 127 and 4099 chunks of 4), so
// `correct` fails, "wrong on 7 of 9 cases (right on the other 2)". The main
// cases are right, so the properties are graded: the predictions (the
// solution's answers.txt beside it) are right (3), and the traced runs (512
// chunks at strides 8 and 4, whole blocks) are right and conflict-free: slot e
// + e / 32 puts lane l's word 8l + k in bank 8(l % 4) + l / 4 + k at stride 8,
// 32 banks (3). Score 0 + 3 + 3 = 6/10.
#pragma once

namespace exercise {

template <unsigned STRIDE>
__device__ unsigned slot(unsigned e)
{
    return e + (e >> 5);  // one pad word after every 32
}

template <unsigned BLOCK, unsigned STRIDE>
__global__ void chunk_sums(const float* __restrict__ in, float* out, unsigned chunks)
{
    __shared__ float staged[BLOCK * STRIDE + BLOCK * STRIDE / 32];
    const unsigned total = chunks * STRIDE;
    const unsigned base = blockIdx.x * BLOCK * STRIDE;
    for (unsigned e = threadIdx.x; e < BLOCK * STRIDE; e += BLOCK) {
        const unsigned index = base + e;
        staged[slot<STRIDE>(e)] = index <= total ? in[index] : 0.0f;  // WRONG: index < total
    }
    __syncthreads();

    float sum = 0.0f;
#pragma unroll
    for (unsigned k = 0; k < STRIDE; ++k) sum += staged[slot<STRIDE>(threadIdx.x * STRIDE + k)];
    const unsigned chunk = blockIdx.x * BLOCK + threadIdx.x;
    if (chunk < chunks) out[chunk] = sum;
}

}  // namespace exercise
