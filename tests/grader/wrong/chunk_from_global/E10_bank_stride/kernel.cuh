// Known wrong (E10): the staging is kept, but each thread adds its chunk
// straight from global memory: no strided shared read, so no bank conflict,
// and uncoalesced loads instead.
//
// Expected verdict: `correct` and `predictions` pass; `conflict_free` fails
// on the staging. Nothing reads staged[], so nvcc drops its stores and the
// loads that fed them: at stride 8 each thread loads its chunk's 8 floats
// (32 bytes, 32 bytes apart across lanes) and touches no shared memory:
// "its threads loaded 32 bytes of in each, stored 0 bytes to shared memory
// (0 words in all) and read 0 back". Score 7/10.
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
    for (unsigned k = 0; k < STRIDE; ++k)  // WRONG: the chunk from global memory, not from staged[]
        if (first + tid * STRIDE + k < total) sum += in[first + tid * STRIDE + k];

    const unsigned chunk = blockIdx.x * BLOCK + tid;
    if (chunk < chunks) out[chunk] = sum;
}

}  // namespace exercise
