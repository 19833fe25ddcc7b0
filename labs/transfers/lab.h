#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"

namespace warplab::transfers {

// Bench tables are measured at 2^28 floats: 1 GiB in and 1 GiB out, the
// walkthrough's question.
constexpr std::size_t kBenchElements = std::size_t(1) << 28;

// The GPU entry points (gpu_bench.cu; gpu_absent.cpp without CUDA): one run
// of a version, checked; and every version timed, with the links' rates and a
// timeline per row.
RunResult run_on_gpu(const RunRequest& req);
BenchTable bench_on_gpu(const BenchOptions& options);

}  // namespace warplab::transfers
