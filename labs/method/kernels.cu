// The method lab's PTX (nvcc -ptx only; never linked): every version for
// floats, and the second kernels of the versions of two launches. Taking a
// kernel's address instantiates it for the device.
#include "labs/method/kernels.cuh"

namespace warplab::method {

void keep_every_kernel(const void** out, unsigned& count)
{
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        out[count++] = reinterpret_cast<const void*>(kernel_pointer(Kernel<V, float>{}));
        if constexpr (TwoLaunches<V>) out[count++] = reinterpret_cast<const void*>(kernel_pointer(Kernel<typename V::Second, float>{}));
        return false;
    });
}

}  // namespace warplab::method
