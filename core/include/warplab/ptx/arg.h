// One kernel argument as raw bytes, exactly as the parameter space holds it.
// Its own header, free of the emulator's CUDA names, so that code compiled by
// nvcc (the GPU trace's callers) can build argument lists too.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace wl::ptx {

struct Arg {
    std::vector<unsigned char> bytes;
    template <class T>
        requires std::is_trivially_copyable_v<T>
    Arg(const T& v) : bytes(sizeof(T))  // NOLINT: implicit on purpose, launch(emu, m, k, g, b, 0, ptr, n)
    {
        if constexpr (std::is_pointer_v<T> && sizeof(T) < sizeof(std::uint64_t)) {
            // A 32-bit host (WebAssembly): the kernel's pointers are 64-bit addresses all the same.
            const std::uint64_t address = reinterpret_cast<std::uintptr_t>(v);
            bytes.resize(sizeof address);
            std::memcpy(bytes.data(), &address, sizeof address);
        } else {
            std::memcpy(bytes.data(), &v, sizeof(T));
        }
    }
};

}  // namespace wl::ptx
