#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"

namespace wl::ptx {
class Module;
}

namespace warplab::coalescing {

Lab make_lab();

// The lab's kernels as PTX (labs/coalescing/kernels.cu, or
// kernels/ptx/coalescing.ptx where the build had no nvcc), embedded in the
// library; and that PTX parsed, once per process (emulator.cpp).
extern const char kPtx[];
const wl::ptx::Module& ptx_module();

// Bench tables are measured at this many output elements: 64 MiB read and
// 64 MiB written, beyond any L2, so the sweep measures DRAM traffic.
constexpr std::size_t kBenchElements = std::size_t(1) << 24;

// The backends' entry points (emulator.cpp, gpu_trace.cu; gpu_absent.cpp
// without CUDA).
RunResult run_on_emulator(const RunRequest& req);
RunResult run_on_gpu(const RunRequest& req);
// Times each version at every setting of its sweep on the GPU (gpu_bench.cu).
BenchTable bench_on_gpu(const BenchOptions& options);

}  // namespace warplab::coalescing
