// What the transfers versions share, in plain C++ (the host compiler reads it
// too): a piece of the data, where it goes, and the kernel's two constants.
#pragma once
#include <cstddef>

namespace warplab::transfers {

// y[i] = kScale * x[i] + kOffset: exact in float for every x the lab feeds it
// (2x is exact; one rounding of the sum, the same with or without fma).
inline constexpr float kScale = 2.0f, kOffset = 1.0f;

// Elements [offset, offset + count) of the data, handled by `gpu` on its
// stream number `stream`.
struct Chunk {
    int gpu = 0;
    unsigned stream = 0;
    std::size_t offset = 0, count = 0;
    bool operator==(const Chunk&) const = default;
};

}  // namespace warplab::transfers
