#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/transpose/problem.h"

namespace wl::ptx {
class Module;
}

namespace warplab::transpose {

Lab make_lab();

// The lab's kernels as PTX (labs/transpose/kernels.cu, or
// kernels/ptx/transpose.ptx where the build had no nvcc), embedded in the
// library; and that PTX parsed, once per process (emulator.cpp).
extern const char kPtx[];
const wl::ptx::Module& ptx_module();

// The shape a request asks for: req.shape = {rows, cols} or {S} (S×S), else
// req.n (n×n), else the trace default (64×64). Throws std::invalid_argument
// for a shape the kernels cannot take.
Shape shape_of(const RunRequest& req);
// The same for a benchmark's options (shape {rows, cols} or {S}, else n×n).
Shape shape_of(const BenchOptions& options);

// The backends' entry points (emulator.cpp, gpu_trace.cu or gpu_none.cpp).
RunResult run_on_emulator(const RunRequest& req);
RunResult run_on_gpu(const RunRequest& req);
// The plain (timing) build of the version on the GPU, every element checked
// against the CPU transpose (gpu_bench.cu). No trace.
RunResult check_on_gpu(const RunRequest& req);
// Times every version and the copy kernel on the GPU (gpu_bench.cu).
BenchTable bench_on_gpu(const BenchOptions& options);

// The status line's account of a run: "out = in transposed, in 64×64 floats; ..." (shared by the backends).
std::string describe(const std::string& version, const Shape& s);

}  // namespace warplab::transpose
