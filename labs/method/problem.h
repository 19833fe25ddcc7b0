// The method lab's problems on the CPU, independent of any kernel: seeded
// inputs, each version's expected output (exact for the bottleneck search and
// the index pair, a double-precision value for the math functions), and the
// error of a float in units in the last place (ulp) of the exact value.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/method/coefficients.cuh"
#include "labs/method/versions.h"
#include "warplab/random.h"

namespace warplab::method {

// V::inputs × n seeded floats: in [0, 1) for the bottleneck search and the
// index pair, in [1, 2) for the math functions (where __sinf's absolute error
// is small against sin x, so its ulp are a fair measure).
template <class V> std::vector<float> make_input(std::size_t n, std::uint64_t seed)
{
    const float lo = V::family == Family::Map ? 1.0f : 0.0f;
    wl::Random rng(seed);
    std::vector<float> v(V::inputs * n);
    for (float& x : v) x = rng.uniform_float(lo, lo + 1.0f);
    return v;
}

// One chain of kernels/method/chain.cuh on the CPU, operation for operation
// (std::fmaf is the GPU's fma.rn.f32; the other operations are exact or
// rounded once alike); `keep` is the chain's weight.
inline float chain_reference(float x, float keep = 0.75f)
{
    constexpr unsigned kAccumulators = 32, kRounds = 16;
    float acc[kAccumulators];
    for (unsigned j = 0; j < kAccumulators; ++j) acc[j] = x + float(j) * 0.03125f;
    for (unsigned r = 0; r < kRounds; ++r)
        for (unsigned j = 0; j < kAccumulators; ++j) acc[j] = std::fmaf(acc[j], keep, acc[(j + 1) % kAccumulators] * (1.0f - keep));
    float sum = acc[0];
    for (unsigned j = 1; j < kAccumulators; ++j) sum += acc[j];
    return sum;
}

// The fission pair's a(x)·b(x) (kernels/method/16_fat_kernel.cuh): the chains
// are independent, so advancing them together changes no rounding.
inline float two_chains_reference(float x) { return chain_reference(x, 0.75f) * chain_reference(x, 0.5f); }

// The index pair's 16 steps (kernels/method/08_divide_modulo.cuh).
inline unsigned index_reference(unsigned i, unsigned d)
{
    unsigned h = i;
    for (unsigned k = 0; k < 16; ++k) h = (h % d) * 3 + h / d + k;
    return h;
}

// The constant-memory pair's polynomial at x for the thread of element i
// (kernels/method/19_constant_uniform.cuh, 20_constant_divergent.cuh), in
// Horner's form as the kernels fuse it: p = fma(p, x, c) from p = 0. The
// divergent version's lane (threadIdx.x % 32) is i % 32: blocks are whole warps.
inline float polynomial_reference(float x, std::size_t i, bool divergent)
{
    constexpr Coefficients table = coefficients();
    const std::size_t lane = divergent ? i % kCoefficients : 0;
    float p = 0;
    for (unsigned k = 0; k < kCoefficients; ++k) p = std::fmaf(p, x, table.c[(k + lane) % kCoefficients]);
    return p;
}

// Bits of a float, and a float from bits: the saxpy memory-only XOR.
inline float xor_bits(float a, float b) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(a) ^ std::bit_cast<std::uint32_t>(b)); }

// What element i of a storing version's output must be, exactly; `in` holds
// V::inputs × n floats.
template <class V> float expected(const std::vector<float>& in, std::size_t i, std::size_t n)
{
    const float x = in[i];
    if constexpr (V::family == Family::Index) {
        return x + float(index_reference(static_cast<unsigned>(i), kDivisor));
    } else if constexpr (V::family == Family::Lookup) {
        return polynomial_reference(x, i, std::is_same_v<V, V20>);
    } else if constexpr (V::family == Family::Shift) {
        return i + kShift < n ? in[i + kShift] : 0.0f;
    } else if constexpr (V::family == Family::Stages) {  // fusion: (x - y)², fission: a(x)·b(x)
        const float d = V::inputs == 2 ? x - in[n + i] : 0.0f;
        return V::inputs == 2 ? d * d : two_chains_reference(x);
    } else if constexpr (V::inputs == 2) {  // SAXPY: x then y
        return keeps_of<V>() == Keeps::Memory ? xor_bits(x, in[n + i]) : std::fmaf(2.5f, x, in[n + i]);
    } else {
        return keeps_of<V>() == Keeps::Memory ? x : chain_reference(x);
    }
}

// The sum of the elements in double: exact for the float inputs here (2^24
// of them below 1 need 24 + 24 bits; a double holds 53).
inline double exact_sum(const std::vector<float>& in)
{
    double s = 0;
    for (float x : in) s += x;
    return s;
}

// How far a float sum of `in` may be from the exact sum in any order of its
// n - 1 additions: each rounds its partial sum p by at most 2^-24·|p|, and
// every |p| <= Σ|x|, so the errors add up to at most (n - 1)·2^-24·Σ|x|
// (Higham, "Accuracy and Stability of Numerical Algorithms", recursive
// summation). A tree of depth d rounds each element's path at most d times:
// d·2^-24·Σ|x|, the bound the reduction lab's tolerance is drawn from.
inline double sum_error_bound(const std::vector<float>& in, std::size_t roundings)
{
    double magnitude = 0;
    for (float x : in) magnitude += std::abs(double(x));
    return double(roundings) * std::ldexp(1.0, -24) * magnitude;
}

// The exact value a math-function version approximates, in double.
template <class V> double exact(double x)
{
    if constexpr (std::is_same_v<V, V10> || std::is_same_v<V, V11>) {
        return std::sin(x) * std::exp(x);
    } else {
        // Horner's form with the kernels' float coefficients: 1/6 rounded to float, 0.5, 1, 1.
        return ((x * double(1.0f / 6) + 0.5) * x + 1.0) * x + 1.0;
    }
}

// The spacing of floats at |exact| (one ulp): 2^(e - 24) for |exact| in
// [2^(e-1), 2^e), the smallest normal float's below.
inline double ulp_of(double exact)
{
    int e = 0;
    std::frexp(std::abs(exact), &e);
    return std::ldexp(1.0, std::max(e, -125) - 24);
}

// |got - exact| in ulp of the exact value.
inline double ulp_error(float got, double exact) { return std::abs(double(got) - exact) / ulp_of(exact); }

}  // namespace warplab::method
