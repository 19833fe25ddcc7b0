#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/reduction/problem.h"

namespace wl::ptx {
class Module;
}

namespace warplab::reduction {

Lab make_lab();

// The lab's kernels as PTX (labs/reduction/kernels.cu, or kernels/ptx/reduction.ptx
// where the build had no nvcc), embedded in the library; and that PTX parsed,
// once per process (emulator.cpp).
extern const char kPtx[];
const wl::ptx::Module& ptx_module();

// The backends' entry points (emulator.cpp, gpu_trace.cu or gpu_none.cpp).
RunResult run_on_emulator(const RunRequest& req);
RunResult run_on_gpu(const RunRequest& req);
// Times every version and CUB on the GPU (gpu_bench.cu).
BenchTable bench_on_gpu(const BenchOptions& options);

}  // namespace warplab::reduction
