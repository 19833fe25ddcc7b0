// One kernel argument as raw bytes, exactly as the parameter space holds it.
// Its own header, free of the emulator's CUDA names, so that code compiled by
// nvcc (the GPU trace's callers) can build argument lists too.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace wl::ptx {

// A pointer is 8 bytes, as PTX's 64-bit addresses are, whatever the host's
// pointer size (a 32-bit host's address, zero-extended). So is a class that
// is only a pointer and converts to one (labs/image's PixelPointer).
template <class T>
inline constexpr bool kPassedAsPointer =
    std::is_pointer_v<T> || (std::is_class_v<T> && sizeof(T) == sizeof(void*) && std::is_convertible_v<T, const void*>);

struct Arg {
    std::vector<unsigned char> bytes;
    template <class T>
        requires std::is_trivially_copyable_v<T>
    Arg(const T& v) : bytes(kPassedAsPointer<T> ? 8 : sizeof(T))  // NOLINT: implicit on purpose, launch(emu, m, k, g, b, 0, ptr, n)
    {
        if constexpr (kPassedAsPointer<T>) {
            const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(static_cast<const void*>(v)));
            std::memcpy(bytes.data(), &address, 8);
        } else {
            std::memcpy(bytes.data(), &v, sizeof(T));
        }
    }
};

}  // namespace wl::ptx
