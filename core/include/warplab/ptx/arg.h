// One kernel argument as raw bytes, exactly as the parameter space holds it.
// Its own header, free of the emulator's CUDA names, so that code compiled by
// nvcc (the GPU trace's callers) can build argument lists too.
#pragma once
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
        std::memcpy(bytes.data(), &v, sizeof(T));
    }
};

}  // namespace wl::ptx
