// Where CMake found no CUDA compiler, the launches that exist only as nvcc's
// code (tma_launch.cu) say why not, as labs/transfers/gpu_absent.cpp does. The
// emulator never reaches them (their versions run only on a GPU), but every
// version's launch is compiled.
#if !defined(WARPLAB_HAVE_CUDA)
#include <stdexcept>

#include "labs/common/lab.h"
#include "labs/matmul/versions.h"

namespace warplab::matmul {
void launch_tma_pipeline(const Operands&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
void launch_bf16_wgmma(const Operands&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
void launch_bf16_multicast(const Operands&) { throw std::invalid_argument("no GPU backend: " + gpu_status().reason); }
}  // namespace warplab::matmul
#endif
