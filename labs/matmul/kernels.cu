// The matmul lab's PTX (nvcc -ptx only; never linked): every version with the
// tile sizes its registry entry names (each of them, for a version with a
// choice of tiles). Taking a kernel's address instantiates it for the device.
#include "labs/matmul/kernels.cuh"

namespace warplab::matmul {

void keep_every_kernel(const void** out, unsigned& count)
{
    for_each_version<Versions>([&](auto v) {
        for_each_instance<decltype(v)>([&](auto instance) { out[count++] = reinterpret_cast<const void*>(kernel_pointer(instance)); });
        return false;
    });
}

}  // namespace warplab::matmul
