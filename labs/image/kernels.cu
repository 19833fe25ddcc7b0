// The image lab's PTX (nvcc -ptx only; never linked): every version at every
// group it takes (versions.h's kGroups), and the later pass at 16×16. Taking
// a kernel's address instantiates it for the device.
#include "labs/image/kernels.cuh"

namespace warplab::image {

template <class V> void keep_groups(const void** out, unsigned& count)
{
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ([&] {
            if constexpr (takes<V>(kGroups[I]))
                out[count++] = reinterpret_cast<const void*>(kernel_pointer(Kernel<V, kGroups[I].x, kGroups[I].y>{}));
        }(), ...);
    }(std::make_index_sequence<std::size(kGroups)>{});
}

void keep_every_kernel(const void** out, unsigned& count)
{
    out[count++] = reinterpret_cast<const void*>(kernel_pointer(Kernel<SumPartials, SumPartials::group.x, SumPartials::group.y>{}));
    for_each_version<Versions>([&](auto v) {
        keep_groups<decltype(v)>(out, count);
        return false;
    });
}

}  // namespace warplab::image
