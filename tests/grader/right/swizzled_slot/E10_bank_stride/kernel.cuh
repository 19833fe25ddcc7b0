// Right but different (E10): no padding; slot() swizzles each run of 32
// words, XORing an element's column (e mod 32) with the low 3 bits of its row
// (e / 32), and the chunk read is a template loop over a pointer.
//
// Expected verdict: full marks with the solution's predictions. By hand, with
// row = e / 32 and column c = e mod 32, bank = c ^ (row mod 8):
// - staging: a warp stores one row's 32 columns, XORed with one constant: 32 banks;
// - stride 8: lane l reads e = 8l + k (plus 256 a warp), row 8w + l/4, column
//   8(l mod 4) + k; row mod 8 = l/4 takes 8 values and the XOR touches the low
//   3 bits only, so bank = 8(l mod 4) + (k ^ l/4): 32 distinct;
// - stride 4: lane l reads e = 4l + k (plus 128 a warp), row 4w + l/8, column
//   4(l mod 8) + k; row mod 8 is 4 values r0 .. r0 + 3 with r0 = 0 or 4: the
//   XOR flips bit 2 for all of them or none (a permutation of l mod 8) and
//   maps k to 4 distinct low values: 32 distinct.
#pragma once

namespace exercise {

template <unsigned STRIDE>
__device__ unsigned slot(unsigned e)
{
    const unsigned row = e / 32, column = e % 32;
    return row * 32 + (column ^ (row % 8));
}

template <unsigned BLOCK, unsigned STRIDE>
__global__ void chunk_sums(const float* __restrict__ in, float* out, unsigned chunks)
{
    constexpr unsigned kStaged = BLOCK * STRIDE;
    __shared__ float staged[kStaged];

    const unsigned tid = threadIdx.x;
    const unsigned long long first = static_cast<unsigned long long>(blockIdx.x) * kStaged;
    const unsigned long long total = static_cast<unsigned long long>(chunks) * STRIDE;
    for (unsigned j = 0; j < STRIDE; ++j) {
        const unsigned e = j * BLOCK + tid;
        staged[slot<STRIDE>(e)] = first + e < total ? in[first + e] : 0.0f;
    }
    __syncthreads();

    const unsigned mine = tid * STRIDE;
    float sum = 0.0f;
#pragma unroll
    for (unsigned k = 0; k < STRIDE; ++k) sum += staged[slot<STRIDE>(mine + k)];

    const unsigned chunk = blockIdx.x * BLOCK + tid;
    if (chunk < chunks) out[chunk] = sum;
}

}  // namespace exercise
