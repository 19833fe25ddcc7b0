// Method v21: the shift copy, read with a plain load (NVIDIA, "Optimizing
// CUDA": textures).
//
// Idea: out[i] = in[i + shift], 0 where i + shift is past the end: every warp
//   reads 32 consecutive floats `shift` elements off its 128-byte alignment,
//   so most of its reads straddle two 128-byte lines.
// Changed: the first of the texture trio; `in` is a plain pointer (no
//   __restrict__, so the compiler may not route the load through the
//   read-only path: ld.global).
// Expected effect: memory-bound at 8 bytes an element; the misaligned reads
//   touch one more 32-byte sector a warp than an aligned copy, which the L2
//   mostly absorbs on recent GPUs.
// Preconditions: `in` and `out` hold n elements.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_shift_load(const T* in, T* out, unsigned n, unsigned shift)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = i + shift < n ? in[i + shift] : T(0);
    }
}

}  // namespace warplab::method
