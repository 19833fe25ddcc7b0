// Runs a copy version on the GPU, recording the watched block from the lab's
// PTX (labs/common/gpu_trace_backend.h).
#include "labs/common/gpu_trace_backend.h"
#include "labs/coalescing/kernels.cuh"
#include "labs/coalescing/lab.h"
#include "labs/coalescing/run.h"

namespace warplab::coalescing {

RunResult run_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    GpuTraceBackend gpu(ptx_module(), kKernels, req);
    RunResult out = copy_request(gpu, req);
    out.backend = "gpu " + status.name;
    out.records = std::move(gpu.records);
    out.user_kernel = gpu.user_kernel_note();
    return out;
}

}  // namespace warplab::coalescing
