// Runs a matmul version on the GPU, recording the watched block from the
// lab's PTX (labs/common/gpu_trace_backend.h).
#include <memory>

#include "labs/common/gpu_trace_backend.h"
#include "labs/matmul/bf16_inputs.cuh"
#include "labs/matmul/driver.h"
#include "labs/matmul/kernels.cuh"
#include "labs/matmul/lab.h"

namespace warplab::matmul {

RunResult run_on_gpu(const RunRequest& req)
{
    const GpuStatus status = gpu_status();
    if (!status.available) throw std::invalid_argument("no GPU backend: " + status.reason);
    const Shape s = shape_of(req);
    wl::cuda::require_free_memory((s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(float), "shape " + s.text());
    GpuTraceBackend gpu(ptx_module(), kKernels, req);
    const Inputs in = make_inputs(s, req.seed);
    float* d_a = gpu.alloc<float>(in.a.size());
    float* d_b = gpu.alloc<float>(in.b.size());
    float* d_c = gpu.alloc<float>(s.m * s.n);
    gpu.copy_to_device(d_a, in.a.data(), in.a.size());
    gpu.copy_to_device(d_b, in.b.data(), in.b.size());
    wl::cuda::check(cudaMemset(d_c, 0xFF, s.m * s.n * sizeof(float)), "cudaMemset(C to NaN)");  // unwritten = NaN

    RunResult out;
    out.backend = "gpu " + status.name;
    out.problem = describe(req.version, s, gpu.multiprocessors());
    out.shape = {s.m, s.n, s.k};
    Arithmetic arithmetic = Arithmetic::Fp32;
    with_version<Versions>(req.version, [&](auto v) {
        using V = decltype(v);
        arithmetic = arithmetic_of<V>();
        describe_launch<V>(out, s, req, gpu.multiprocessors());
        std::unique_ptr<Bf16Inputs> bf16;  // a BF16 version's inputs, rounded first
        if constexpr (arithmetic_of<V>() == Arithmetic::Bf16) bf16 = std::make_unique<Bf16Inputs>(d_a, d_b, s);
        multiply_on<V>(gpu, d_a, d_b, d_c, s, bf16 ? bf16->operands() : Bf16Operands{});
        out.records = std::move(gpu.records);
        gpu.describe_user_kernel(out);
    });

    std::vector<float> c(s.m * s.n);
    gpu.copy_to_host(c.data(), d_c, c.size());
    gpu.free(d_a);
    gpu.free(d_b);
    gpu.free(d_c);
    check_product(out, s, in, c, arithmetic);
    return out;
}

}  // namespace warplab::matmul
