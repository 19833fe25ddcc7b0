// Method v23: the shift copy through a texture object (NVIDIA, "Optimizing
// CUDA": textures, whose example this is; texture objects in place of its
// texture references, which CUDA 12 removed).
//
// Idea: v21's copy with `in` read by tex1Dfetch from a texture object that
//   the host made over the same linear memory (cudaCreateTextureObject with
//   cudaResourceTypeLinear, point sampling, elements read as stored).
// Changed: the pointer `in` becomes the texture object `in`, and the load
//   tex1Dfetch<T>(in, i + shift) (tex.1d in the PTX).
// Expected effect: v21's results; on the deck's 2009 GPU the texture cache
//   hid the misalignment that cost the plain load dearly; on a GPU with an L1
//   and an L2 for global loads, about v21's and v22's time.
// Preconditions: `in` is a texture object of float texels over n elements,
//   `out` holds n elements.
#pragma once

namespace warplab::method {

template <class T>
__global__ void method_shift_texture(cudaTextureObject_t in, T* out, unsigned n, unsigned shift)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = i + shift < n ? tex1Dfetch<T>(in, int(i + shift)) : T(0);
    }
}

}  // namespace warplab::method
