// CUDA arrays and texture objects in warplab's CUDA runtime (CUDA-facing, as
// cuda_api.cpp, whose entry points call these): a CUDA array's texels live in
// emulator memory, rows packed; a texture object is the emulator's
// (warplab/emu/texture.h). Each throws Failure for what CUDA refuses, and
// Error::NotSupported, with one line, for what warplab does not emulate.
#pragma once
#include "cuda_facing.h"
#include "device.h"

namespace wl::cudart {

cudaArray_t make_array(const cudaChannelFormatDesc& desc, size_t width, size_t height, unsigned flags, const CallSite& site);
void free_array(cudaArray_t array, const CallSite& site);
// A copy into or out of an array: `rows` rows of `row_bytes` from byte x_bytes of row y,
// `pitch` bytes apart on the other side.
struct ArrayRegion {
    size_t x_bytes, y, row_bytes, rows;
};
void copy_to_array(cudaArray_t array, ArrayRegion region, const void* src, size_t pitch, Direction direction, const char* call);
void copy_from_array(void* dst, size_t pitch, cudaArray_const_t array, ArrayRegion region, Direction direction, const char* call);
// cudaMemcpyToArray: `bytes` from byte x_bytes of row y on, running on into the next rows.
void copy_run_to_array(cudaArray_t array, size_t x_bytes, size_t y, const void* src, size_t bytes, Direction direction);

cudaTextureObject_t make_texture_object(const cudaResourceDesc& resource, const cudaTextureDesc& texture,
                                        const cudaResourceViewDesc* view);
void destroy_texture_object(cudaTextureObject_t texture);

}  // namespace wl::cudart
