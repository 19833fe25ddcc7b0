// E10: a strided shared-memory read without bank conflicts (after CS-206's
// "degree of bank conflict for stride s" exercise).
//
// Block b owns chunks b*BLOCK ... of STRIDE consecutive floats each; thread
// tid writes the sum of its chunk to out[b*BLOCK + tid]. The block first
// stages its BLOCK*STRIDE floats in shared memory with coalesced loads (done),
// then each thread reads its own chunk from shared memory: lane tid reads
// element tid*STRIDE + k, a read of stride STRIDE. Write that read, and place
// the elements (slot(): padding or a swizzle) so that it has no bank conflict
// while the staging stores keep none.
//
// First predict, in answers.txt, what the plain layout (slot(e) = e) costs.
// Grade it:  build/warplab grade E10        (README.md says what is checked)
#pragma once

namespace exercise {

// Where element e of the block's staged floats lives in shared memory.
// TODO: slot(e) = e puts the chunk read's lanes STRIDE words apart. Pad or swizzle.
template <unsigned STRIDE>
__device__ unsigned slot(unsigned e)
{
    return e;
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
    // TODO: add the STRIDE elements of this thread's chunk, tid*STRIDE + k,
    // reading them from staged[] through slot<STRIDE>().

    const unsigned chunk = blockIdx.x * BLOCK + tid;
    if (chunk < chunks) out[chunk] = sum;
}

}  // namespace exercise
