// Runs a reduction version on the GPU, recording the watched block of the
// first launch from the lab's PTX (labs/common/gpu_trace_backend.h).
#include "labs/common/gpu_trace_backend.h"
#include "labs/reduction/kernels.cuh"
#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"

namespace warplab::reduction {

namespace {

void require_room(std::size_t bytes)
{
    std::size_t free_bytes = 0, total_bytes = 0;
    wl::cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (bytes > free_bytes)
        throw std::invalid_argument("the input needs " + std::to_string(bytes >> 20) + " MiB, more than the GPU's " +
                                    std::to_string(free_bytes >> 20) + " MiB of free memory");
}

}  // namespace

RunResult run_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    require_room(req.n * 4 * 2);
    GpuTraceBackend gpu(ptx_module(), kKernels, req);
    RunResult out = with_element_type(req.type, [&]<class T>() { return reduce_request<T>(gpu, req); });
    out.backend = "gpu " + status.name;
    out.records = std::move(gpu.records);
    return out;
}

}  // namespace warplab::reduction
