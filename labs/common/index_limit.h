// The largest problem a lab's kernels can index: they compute element indices
// in 32-bit unsigned arithmetic, so every array has fewer than 2^32 elements.
// In 64 bits on every platform: with a 32-bit size_t, rows * cols wraps.
#pragma once
#include <cstdint>

namespace warplab {

constexpr std::uint64_t kMaxElements = 0xFFFFFFFFull;

// rows, cols <= 2^32 - 1 keeps their product below 2^64, so it is exact.
constexpr bool indexable_by_32_bits(std::uint64_t rows, std::uint64_t cols)
{
    return rows <= kMaxElements && cols <= kMaxElements && rows * cols <= kMaxElements;
}

}  // namespace warplab
