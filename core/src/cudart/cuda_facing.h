// What the CUDA-facing translation units of warplab's runtime share: NVIDIA's
// declarations (cuda_runtime_api.h, whose dim3 is not warplab's: no file that
// includes this includes warplab's headers but device.h and the dim3-free
// warplab/emu/texture.h).
#pragma once
#include <cuda_runtime_api.h>

namespace wl::cudart {

// A runtime function warplab does not implement: one stderr line naming it
// (once per function), the program's last error set; cudaErrorNotSupported.
cudaError_t unsupported(const char* function);

// "cudaErrorInvalidValue": the enumerator's name, nullptr for a value CUDA does not define
// (generated from driver_types.h with the unsupported functions).
const char* error_name(cudaError_t e);

}  // namespace wl::cudart
