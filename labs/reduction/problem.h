// The reduction problem itself, independent of any kernel: seeded inputs, the
// CPU reference and the tolerance a result must meet.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "warplab/random.h"

namespace warplab::reduction {

enum class ElemType { Int, Float };
inline const char* to_string(ElemType t) { return t == ElemType::Int ? "int" : "float"; }

// ints in [0, 9] (small, so a tree of partial sums is readable in the viewer);
// floats in [0, 1). Seeded: the same seed gives the same data everywhere,
// drawn on the host's cores (wl::Random::fill_ints).
template <class T> void fill_input(std::span<T> out, std::uint64_t seed)
{
    wl::Random rng(seed);
    if constexpr (std::is_integral_v<T>)
        rng.fill_ints<0, 9>(out);
    else
        rng.fill_floats(out, 0.0f, 1.0f);
}

template <class T> std::vector<T> make_input(std::size_t n, std::uint64_t seed)
{
    std::vector<T> v(n);
    fill_input(std::span<T>(v), seed);
    return v;
}

// int: the exact 32-bit two's-complement sum, which is what the GPU computes
// in any order (wrap-around addition is associative). float: a double sum.
template <class Elements> double reference_sum(const Elements& v)
{
    using T = typename Elements::value_type;  // a vector's or a span's, without const
    if constexpr (std::is_integral_v<T>) {
        std::uint32_t s = 0;
        for (T x : v) s += static_cast<std::uint32_t>(x);
        return static_cast<std::int32_t>(s);
    } else {
        double s = 0;
        for (T x : v) s += x;
        return s;
    }
}

// int: exact. float: no tolerance of zero, because float addition is not
// associative: every addition rounds, so the same elements added in another
// order give another float, and the kernels add in their tree's order, not
// the CPU's (the method lab's v18 and tests/method sum one array in three
// orders and get three answers). The bound holds for every order the
// versions take: each addition rounds its partial sum p by at most
// 2^-24 * |p| <= 2^-24 * sum|x|, and an element passes through at most d
// additions on its way to the result, d the depth of the order's tree, so
// |sum - exact| <= d * 2^-24 * sum|x| (Higham, "Accuracy and Stability of
// Numerical Algorithms", pairwise summation). A tree over a block of 256 has
// d = 8; the grid-stride versions add up to n / (grid * block) elements in
// sequence per thread, so d can reach a few thousand at 2^28: 1e-4 * sum|x|
// covers d <= 1600 levels (1e-4 / 2^-24 = 1678); inputs are non-negative, so
// sum|x| = sum. The 1e-6 absolute term covers n = 1.
template <class T> bool sum_matches(double got, double expected)
{
    if constexpr (std::is_integral_v<T>) {
        return got == expected;
    } else {
        return std::isfinite(got) && std::fabs(got - expected) <= 1e-4 * std::fabs(expected) + 1e-6;
    }
}

}  // namespace warplab::reduction
