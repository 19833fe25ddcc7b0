// Coalescing v2: strided copy (NVIDIA, "Optimizing CUDA": strideCopy).
//
// Idea: thread i copies in[i * stride] to out[i]. Neighbouring lanes read
//   words `stride` apart, so a warp's 32 reads spread over 32 * stride words.
// Changed from v1: the read index is multiplied by the setting instead of
//   shifted by it; the write is the same coalesced out[i].
// Expected effect: a 32-byte sector holds 8 floats, so lanes 8 / stride apart
//   share one: 4 * stride sectors per read request up to stride 8, then one
//   sector per lane, 32, for every larger stride. Each sector moved carries
//   only 32 / stride of its bytes, so the effective bandwidth falls roughly as
//   1 / stride until it levels off at stride 8.
// Preconditions: `in` holds (n - 1) * stride + 1 elements, `out` n.
#pragma once
#include <cstddef>

namespace warplab::coalescing {

template <class T>
__global__ void copy_stride(const T* __restrict__ in, T* __restrict__ out, unsigned n, unsigned stride)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[std::size_t(i) * stride];
    }
}

}  // namespace warplab::coalescing
