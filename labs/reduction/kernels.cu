// The reduction lab's PTX (nvcc -ptx only; never linked): every version at
// every block size it accepts (labs/reduction/driver.h) and both element
// types. Taking a kernel's address instantiates it for the device.
#include "labs/reduction/driver.h"
#include "labs/reduction/kernels.cuh"

namespace warplab::reduction {

template <class V, class T> void keep_block_sizes(const void** out, unsigned& count)
{
    for_each_block_size([&]<unsigned B>() {
        if constexpr (B >= V::min_block) out[count++] = reinterpret_cast<const void*>(kernel_pointer(Kernel<V, B, T>{}));
    });
}

void keep_every_kernel(const void** out, unsigned& count)
{
    for_each_version<Versions>([&](auto v) {
        keep_block_sizes<decltype(v), int>(out, count);
        keep_block_sizes<decltype(v), float>(out, count);
        return false;
    });
}

}  // namespace warplab::reduction
