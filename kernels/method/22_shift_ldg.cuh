// Method v22: the shift copy through the read-only data cache (NVIDIA,
// "Optimizing CUDA": textures; the CUDA C++ Programming Guide's __ldg).
//
// Idea: v21's copy with the load written __ldg(&in[i + shift]): the read goes
//   through the read-only (texture) cache path without a texture object.
// Changed: in[i + shift] becomes __ldg(&in[i + shift]) (ld.global.nc).
// Expected effect: v21's bytes and results; the same time or a little less
//   where the non-coherent path caches the overlapping lines better.
// Preconditions: `in` and `out` hold n elements; `in` is not written while
//   the kernel runs (what the read-only path assumes).
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_shift_ldg(const T* in, T* out, unsigned n, unsigned shift)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = i + shift < n ? __ldg(&in[i + shift]) : T(0);
    }
}

}  // namespace warplab::method
