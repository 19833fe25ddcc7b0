#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/matmul/problem.h"

namespace wl::ptx {
class Module;
}

namespace warplab::matmul {

Lab make_lab();

// The lab's kernels as PTX (labs/matmul/kernels.cu, or kernels/ptx/matmul.ptx
// where the build had no nvcc), embedded in the library; and that PTX parsed,
// once per process (emulator.cpp).
extern const char kPtx[];
const wl::ptx::Module& ptx_module();

// The shape a request asks for: req.shape = {M, N, K} or {S} (S×S×S), else
// req.n (n×n×n), else the version's trace default (one block's worth).
// Throws std::invalid_argument for a shape the kernels cannot take.
Shape shape_of(const RunRequest& req);

// The backends' entry points (emulator.cpp, gpu_trace.cu or gpu_none.cpp).
RunResult run_on_emulator(const RunRequest& req);
RunResult run_on_gpu(const RunRequest& req);
// The plain (timing) build of the version on the GPU, every element of C
// checked against cuBLAS SGEMM in pedantic FP32 (gpu_bench.cu). No trace.
RunResult check_on_gpu(const RunRequest& req);
// Times every version and cuBLAS on the GPU (gpu_bench.cu).
BenchTable bench_on_gpu(const BenchOptions& options);

// The status line's account of a run on a GPU of `sms` SMs (or the emulator
// standing in for one): "C = A·B, 64×64×64 floats; ...", with the tiles that
// ran where the version chooses them by size (shared by the backends).
std::string describe(const std::string& version, const Shape& s, unsigned sms);

}  // namespace warplab::matmul
