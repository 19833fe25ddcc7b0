#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/matmul/problem.h"

namespace warplab::matmul {

// The lab's kernels as PTX (labs/matmul/kernels.cu, or kernels/ptx/matmul.ptx
// where the build had no nvcc), embedded in the library.
extern const char kPtx[];

// The shape a request asks for: req.shape = {M, N, K} or {S} (S×S×S), else
// req.n (n×n×n), else the version's trace default (one block's worth).
// Throws std::invalid_argument for a shape the kernels cannot take.
Shape shape_of(const RunRequest& req);

// The status line's account of a run on a GPU of `sms` SMs (or the emulator
// standing in for one): "C = A·B, 64×64×64 floats; ...", with the tiles that
// ran where the version chooses them by size (shared by the backends).
std::string describe(const std::string& version, const Shape& s, unsigned sms);

// nvcc only (gpu_bench.cu): the GPU trace of the run skeleton, the check below
// and the benchmark.
GpuBackends gpu_backends();
// The plain (timing) build of the version on the GPU, every element of C
// checked against cuBLAS SGEMM in pedantic FP32. No trace.
RunResult check_on_gpu(const RunRequest& req);
// Times every version and cuBLAS on the GPU.
BenchTable bench_on_gpu(const BenchOptions& options);

}  // namespace warplab::matmul
