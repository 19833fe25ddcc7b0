// v10's file compiled whole under -use_fast_math: CMakeLists.txt gives this
// file the flag, which turns sinf and expf into __sinf and __expf (and
// flushes subnormals to zero) without a change to the source. The kernel is
// included into a namespace of its own, so that its instance is not the same
// symbol as the plain build's v10 (gpu_bench.cu), which has no such flag.
#include "labs/method/fast_math.h"

namespace fast_math {
#include "kernels/method/10_sin_exp.cuh"
}  // namespace fast_math

namespace warplab::method {

MapKernel sin_exp_fast_math() { return &fast_math::warplab::method::method_sin_exp<float>; }

}  // namespace warplab::method
