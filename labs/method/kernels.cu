// The method lab's PTX (nvcc -ptx only; never linked): every version for
// floats. Taking a kernel's address instantiates it for the device.
#include "labs/method/kernels.cuh"

namespace warplab::method {

void keep_every_kernel(const void** out, unsigned& count)
{
    for_each_version<Versions>([&](auto v) {
        out[count++] = reinterpret_cast<const void*>(kernel_pointer(Kernel<decltype(v), float>{}));
        return false;
    });
}

}  // namespace warplab::method
