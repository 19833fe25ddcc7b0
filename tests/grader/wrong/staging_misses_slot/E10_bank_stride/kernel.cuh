// Known wrong (E10): slot(e) = e + e/32 (one pad word after every 32) and a
// chunk read through slot(), but the staging stores each element at its
// index, staged[e], forgetting the landing call there.
//
// Expected verdict, by hand: element e sits at word e, while thread tid reads
// words slot(tid*STRIDE + k). For elements below 32 the two agree (slot(e) =
// e), so "1 chunk of 8" (thread 0, elements 0 to 7) is right. In every other
// case a thread past the first 32 elements reads its neighbours' elements
// (thread 4 at STRIDE 8 looks for element 32 at word 33, which holds element
// 33) or, from element 992 on at STRIDE 8 (slot(993) = 1024), words the
// staging never wrote: wrong sums or "read of uninitialised shared memory",
// "wrong on 8 of 9 cases (right on the other 1)". The main cases (512 chunks)
// are wrong: `conflict_free` is not graded. The hint is derived from the trace
// and the student's own slot(), run by the grader: element 32 stored at
// staged[32], its index, but read by thread 4 at staged[33], "where slot(32) =
// 33 puts it" (the first element whose slot differs from its index). The
// predictions (the solution's answers.txt, copied beside this file by
// tests/grader) earn 3. Score 3/10.
#pragma once

namespace exercise {

template <unsigned STRIDE>
__device__ unsigned slot(unsigned e)  // a pad word after every 32
{
    return e + (e >> 5);
}

template <unsigned BLOCK, unsigned STRIDE>
__global__ void chunk_sums(const float* __restrict__ in, float* out, unsigned chunks)
{
    __shared__ float staged[BLOCK * STRIDE + BLOCK * STRIDE / 32];
    const unsigned tid = threadIdx.x;
    const unsigned base = blockIdx.x * BLOCK * STRIDE;
    for (unsigned j = 0; j < STRIDE; ++j) {
        const unsigned e = j * BLOCK + tid;
        staged[e] = base + e < chunks * STRIDE ? in[base + e] : 0.0f;  // WRONG: staged[slot<STRIDE>(e)]
    }
    __syncthreads();
    float sum = 0.0f;
    for (unsigned k = 0; k < STRIDE; ++k) sum += staged[slot<STRIDE>(tid * STRIDE + k)];
    const unsigned chunk = blockIdx.x * BLOCK + tid;
    if (chunk < chunks) out[chunk] = sum;
}

}  // namespace exercise
