// GPU availability, as the CUDA runtime sees it.
#include <cuda_runtime.h>

#include "labs/common/lab.h"

namespace warplab {

GpuStatus gpu_status()
{
    static const GpuStatus status = [] {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess) return GpuStatus{false, "", std::string("no usable CUDA GPU (") + cudaGetErrorString(e) + ")"};
        if (count == 0) return GpuStatus{false, "", "no CUDA GPU on this machine"};
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, 0);
        return GpuStatus{true, prop.name, ""};
    }();
    return status;
}

}  // namespace warplab
