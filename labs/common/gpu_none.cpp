// Built when CMake found no CUDA compiler: every GPU entry point says why not.
// (Labs on the run skeleton have none to stub: their registry line passes no
// GPU backends, and labs/common/make_lab.h says why.)
#include <stdexcept>

#include "labs/common/lab.h"
#include "labs/matmul/lab.h"
#include "labs/matmul/versions.h"

namespace warplab {

GpuStatus gpu_status()
{
#if defined(__EMSCRIPTEN__)
    return GpuStatus{false, "", "a browser has no GPU backend: traces run on the emulator, times are the recorded ones"};
#else
    return GpuStatus{false, "", "warplab was built without the GPU backend (no nvcc at configure time, or -DWARPLAB_CUDA=OFF)"};
#endif
}

namespace matmul {
RunResult run_on_gpu(const RunRequest&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
RunResult check_on_gpu(const RunRequest&) { throw std::invalid_argument("no GPU: " + gpu_status().reason); }
BenchTable bench_on_gpu(const BenchOptions&) { throw std::invalid_argument("no GPU to time on: " + gpu_status().reason); }
void launch_tma_pipeline(const Operands&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
void launch_bf16_wgmma(const Operands&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
}  // namespace matmul

}  // namespace warplab
