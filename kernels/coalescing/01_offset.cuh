// Coalescing v1: offset copy (NVIDIA, "Optimizing CUDA": offsetCopy).
//
// Idea: thread i copies in[i + offset] to out[i]. A warp's 32 lanes read 32
//   consecutive floats, 128 bytes, which start `offset` words past a 128-byte
//   boundary; the writes stay aligned.
// Changed: the starting point of the lab; the offset is a kernel argument
//   (0 to 32), so one compiled kernel covers the whole sweep.
// Expected effect: an offset that is a multiple of 8 words (32 bytes) reads 4
//   sectors per request, the ideal; any other offset straddles one more sector
//   boundary: 5 sectors. On compute capability 1.0 a misaligned half-warp was
//   16 separate transactions; since 1.2 the hardware fetches whole segments and
//   neighbouring warps share the extra sector through the cache, so the
//   bandwidth falls far less than the sector count rises.
// Preconditions: `in` holds n + offset elements, `out` n.
#pragma once

namespace warplab::coalescing {

template <class T>
__global__ void copy_offset(const T* __restrict__ in, T* __restrict__ out, unsigned n, unsigned offset)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i + offset];
    }
}

}  // namespace warplab::coalescing
