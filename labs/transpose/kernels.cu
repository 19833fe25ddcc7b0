// The transpose lab's PTX (nvcc -ptx only; never linked): every version with
// the tile sizes its registry entry names (v5: both of its tiles). Taking a kernel's address
// instantiates it for the device. (The copy kernel is the benchmark's alone.)
#include "labs/transpose/kernels.cuh"

namespace warplab::transpose {

void keep_every_kernel(const void** out, unsigned& count)
{
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        for_each_instance<V>([&](auto instance) { out[count++] = reinterpret_cast<const void*>(kernel_pointer(instance)); });
        return false;
    });
}

}  // namespace warplab::transpose
