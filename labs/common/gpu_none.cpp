// Built when CMake found no CUDA compiler: the GPU's status says why there is
// none. (Labs on the run skeleton have no GPU entry points to stub: their
// registry line passes no GPU backends, and labs/common/make_lab.h says why.)
#include <stdexcept>

#include "labs/common/lab.h"

namespace warplab {

GpuStatus gpu_status()
{
#if defined(__EMSCRIPTEN__)
    return GpuStatus{false, "", "a browser has no GPU backend: traces run on the emulator, times are the recorded ones"};
#else
    return GpuStatus{false, "", "warplab was built without the GPU backend (no nvcc at configure time, or -DWARPLAB_CUDA=OFF)"};
#endif
}

}  // namespace warplab
