// A lab's GPU entry points from its description (labs/common/run_skeleton.h),
// nvcc only: the trace (the lab's PTX instrumented, the watched block
// recorded) and the check of the timing build, both the one run of D::run.
// The lab's gpu_bench.cu returns gpu_backends_of<Description>(its bench).
#pragma once
#include <functional>
#include <stdexcept>
#include <utility>

#include "labs/common/gpu_bench.h"
#include "labs/common/gpu_trace_backend.h"
#include "labs/common/run_skeleton.h"

namespace warplab {

template <class D> RunResult trace_on_gpu(const RunRequest& req, const wl::ptx::Module& module)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    if constexpr (requires { D::device_bytes(req); }) {
        const DeviceBytes need = D::device_bytes(req);
        wl::cuda::require_free_memory(need.bytes, need.what);
    }
    GpuTraceBackend gpu(module, D::kernels, req);
    RunResult out = run_on<D>(gpu, req);
    out.backend = "gpu " + status.name;
    out.records = std::move(gpu.records);
    gpu.describe_user_kernel(out);
    return out;
}

// The version as `warplab bench` times it (nvcc's build, no tracing), every output checked.
template <class D> RunResult check_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU: " + status.reason);
    RunRequest plain = req;
    plain.record = false;  // nothing is traced: no limit on the trace's size
    TimingDevice gpu;
    RunResult out = run_on<D>(gpu, plain);
    wl::cuda::check(cudaGetLastError(), "launch");
    out.backend = "gpu " + status.name + " (timing build)";
    return out;
}

template <class D> GpuBackends gpu_backends_of(std::function<BenchTable(const BenchOptions&)> bench)
{
    return GpuBackends{trace_on_gpu<D>, check_on_gpu<D>, std::move(bench)};
}

}  // namespace warplab
