#pragma once
#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/reduction/problem.h"

namespace warplab::reduction {

// The lab's kernels as PTX (labs/reduction/kernels.cu, or kernels/ptx/reduction.ptx
// where the build had no nvcc), embedded in the library.
extern const char kPtx[];

// nvcc only (gpu_bench.cu): the GPU trace and check of the run skeleton, and
// the benchmark, which times every version and CUB.
GpuBackends gpu_backends();
BenchTable bench_on_gpu(const BenchOptions& options);

}  // namespace warplab::reduction
