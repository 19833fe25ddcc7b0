// The CUDA driver API, loaded when first needed (dlopen of libcuda.so.1)
// rather than linked: binaries that link warplab_cuda still start, and say
// why there is no GPU, on machines without an NVIDIA driver.
#pragma once
#include <cuda.h>

#include <string>

namespace wl::cuda::detail {

// Every driver function the GPU trace calls. cuda.h maps some names to their
// current ABI versions (cuMemAlloc -> cuMemAlloc_v2); the macros below go
// through the same mapping, so member, symbol and type always agree.
#define WL_CUDA_DRIVER_FUNCTIONS(X)                                                                              \
    X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGet) X(cuDeviceGetCount)                         \
    X(cuDevicePrimaryCtxRetain) X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemAlloc)        \
    X(cuMemFree) X(cuMemGetInfo) X(cuMemGetAddressRange) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemsetD8)        \
    X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuFuncSetAttribute) X(cuLaunchKernel)      \
    X(cuLaunchCooperativeKernel)                                                                                \
    X(cuEventCreate) X(cuEventRecord) X(cuEventQuery) X(cuEventDestroy)

struct DriverApi {
#define WL_CUDA_DRIVER_MEMBER(f) decltype(&::f) f = nullptr;
    WL_CUDA_DRIVER_FUNCTIONS(WL_CUDA_DRIVER_MEMBER)
#undef WL_CUDA_DRIVER_MEMBER
};

// The loaded driver, or nullptr with the reason in `why`.
const DriverApi* load_driver(std::string& why);

}  // namespace wl::cuda::detail
