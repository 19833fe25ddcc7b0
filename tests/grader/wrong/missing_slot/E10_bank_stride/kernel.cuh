// Known wrong (E10): the staging places element e at slot(e) = e + e/32 (one
// pad word after every 32), but the chunk read forgets the landing call and
// reads staged[tid*STRIDE + k], the element's index.
//
// Expected verdict, by hand: slot() leaves words 32, 65, 98, ... (33m - 1)
// unwritten. At stride 8 thread 4 reads word 32 (4 * 8 + 0), at stride 4
// thread 8 does (8 * 4 + 0); nvcc keeps a thread's reads under its
// `chunk < chunks` store, so only a block with such a chunk reads it. Each
// case has one but "1 chunk of 8" (thread 0 alone reads words 0 to 7, all
// written): it is right, the other 8 fault, "read of uninitialised shared
// memory: staged[32]", and `correct` reports "wrong on 8 of 9 cases (right on
// the other 1)". The hint is derived from the trace: thread 4 reads word 32,
// the index of an element of its own chunk, where the staging put element 32
// at word 33: "the chunk read misses the landing call". The main cases (512
// chunks at strides 8 and 4) are among the wrong ones, so `conflict_free` is
// not graded (its traced run of 512 chunks faults likewise). The predictions (the
// solution's answers.txt, copied beside this file by tests/grader) earn 3.
// Score 3/10.
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
    __shared__ float staged[kStaged + kStaged / 32];

    const unsigned tid = threadIdx.x;
    const unsigned long long first = static_cast<unsigned long long>(blockIdx.x) * kStaged;
    const unsigned long long total = static_cast<unsigned long long>(chunks) * STRIDE;
    for (unsigned j = 0; j < STRIDE; ++j) {
        const unsigned e = j * BLOCK + tid;
        staged[slot<STRIDE>(e)] = first + e < total ? in[first + e] : 0.0f;
    }
    __syncthreads();

    float sum = 0.0f;
    for (unsigned k = 0; k < STRIDE; ++k) sum += staged[tid * STRIDE + k];  // WRONG: staged[slot<STRIDE>(...)]

    const unsigned chunk = blockIdx.x * BLOCK + tid;
    if (chunk < chunks) out[chunk] = sum;
}

}  // namespace exercise
