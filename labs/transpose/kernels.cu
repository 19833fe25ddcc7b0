// The transpose lab's PTX (nvcc -ptx only; never linked): every version with
// the tile sizes its registry entry names. Taking a kernel's address
// instantiates it for the device. (The copy kernel is the benchmark's alone.)
#include "labs/transpose/kernels.cuh"

namespace warplab::transpose {

void keep_every_kernel(const void** out, unsigned& count)
{
    for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        out[count++] = reinterpret_cast<const void*>(kernel_pointer(KernelInstance<V, typename V::template_args>{}));
        return false;
    });
}

}  // namespace warplab::transpose
