// Runs a transpose version on the GPU, recording the watched block from the
// lab's PTX (labs/common/gpu_trace_backend.h).
#include "labs/common/gpu_trace_backend.h"
#include "labs/transpose/driver.h"
#include "labs/transpose/kernels.cuh"
#include "labs/transpose/lab.h"

namespace warplab::transpose {

RunResult run_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    const Shape s = shape_of(req);
    wl::cuda::require_free_memory(s.bytes_moved(), "shape " + s.text());
    GpuTraceBackend gpu(ptx_module(), kKernels, req);
    const std::vector<float> in = make_input(s, req.seed);
    float* d_in = gpu.alloc<float>(in.size());
    float* d_out = gpu.alloc<float>(s.elements());
    gpu.copy_to_device(d_in, in.data(), in.size());
    wl::cuda::check(cudaMemset(d_out, 0xFF, s.elements() * sizeof(float)), "cudaMemset(out to NaN)");  // unwritten = NaN

    RunResult out;
    out.backend = "gpu " + status.name;
    out.problem = describe(req.version, s);
    out.shape = {s.rows, s.cols};
    with_version(req.version, [&](auto v) {
        using V = decltype(v);
        describe_launch<V>(out, s, req);
        transpose_on<V>(gpu, d_in, d_out, s);
        out.records = std::move(gpu.records);
        out.user_kernel = gpu.user_kernel_note();
    });

    std::vector<float> result(s.elements());
    gpu.copy_to_host(result.data(), d_out, result.size());
    gpu.free(d_in);
    gpu.free(d_out);
    check_transpose(out, s, in, result);
    return out;
}

}  // namespace warplab::transpose
