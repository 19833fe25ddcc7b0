// Where CMake found no CUDA compiler, the lab's GPU entry points say why not.
// Labs on the run skeleton have none to stub (labs/common/gpu_none.cpp says
// why); matmul's nvcc-only launches do the same in labs/matmul/gpu_absent.cpp.
#if !defined(WARPLAB_HAVE_CUDA)
#include <stdexcept>

#include "labs/transfers/lab.h"

namespace warplab::transfers {
RunResult run_on_gpu(const RunRequest&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
BenchTable bench_on_gpu(const BenchOptions&) { throw std::invalid_argument("no GPU to time on: " + gpu_status().reason); }
}  // namespace warplab::transfers
#endif
