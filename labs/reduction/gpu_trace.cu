// Runs a reduction version on the GPU, recording the watched block of the
// first launch from the lab's PTX (labs/common/gpu_trace_backend.h).
#include "labs/common/gpu_trace_backend.h"
#include "labs/reduction/kernels.cuh"
#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"

namespace warplab::reduction {

RunResult run_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    wl::cuda::require_free_memory(req.n * 4 * 2, "the input");
    GpuTraceBackend gpu(ptx_module(), kKernels, req);
    RunResult out = with_element_type(req.type, [&]<class T>() { return reduce_request<T>(gpu, req); });
    out.backend = "gpu " + status.name;
    out.records = std::move(gpu.records);
    out.user_kernel = gpu.user_kernel_note();
    return out;
}

}  // namespace warplab::reduction
