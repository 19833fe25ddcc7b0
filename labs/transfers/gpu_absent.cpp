// Where CMake found no CUDA compiler, the lab's GPU entry points say why not
// (labs/common/gpu_none.cpp does the same for the other labs).
#if !defined(WARPLAB_HAVE_CUDA)
#include <stdexcept>

#include "labs/transfers/lab.h"

namespace warplab::transfers {
RunResult run_on_gpu(const RunRequest&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
BenchTable bench_on_gpu(const BenchOptions&) { throw std::invalid_argument("no GPU to time on: " + gpu_status().reason); }
}  // namespace warplab::transfers
#endif
