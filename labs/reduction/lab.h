#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/reduction/problem.h"

namespace warplab::reduction {

Lab make_lab();

// The backends' entry points (emulator.cpp, gpu_trace.cu or gpu_none.cpp).
RunResult run_on_emulator(const RunRequest& req);
RunResult run_on_gpu(const RunRequest& req);
// Times every version and CUB on the GPU (gpu_bench.cu).
BenchTable bench_on_gpu(const BenchOptions& options);

}  // namespace warplab::reduction
