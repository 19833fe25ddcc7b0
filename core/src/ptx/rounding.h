// Directed rounding (.rz, .rm, .rp) in software: the host's rounding mode
// (fesetround) is ignored by some platforms (WebAssembly) and compilers may
// move float operations across it, so it is not used.
//
// Every operation is computed once, rounded to nearest (the host's default,
// which IEEE 754 platforms all honour), together with the sign of what that
// rounding dropped, exact - nearest, found with an error-free transformation
// (TwoSum, or an FMA residual such as a - q*b for a quotient q). The directed
// result is then the nearest one, or its neighbour one ulp toward the mode's
// side when the exact value lies there. Float (and half) operations run in
// double, where their products are exact and their residuals never underflow.
//
// The error-free transformations need each double operation rounded once:
// on 32-bit x86 compile with SSE2 arithmetic (-msse2 -mfpmath=sse), not x87.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "values.h"

namespace wl::ptx::detail {

// A result rounded to nearest and the sign of exact - value: -1, 0 or +1.
struct Nearest {
    double value;
    int residual;
};

inline bool directed(Round r) { return r == Round::Rz || r == Round::Rm || r == Round::Rp; }
inline int sign_of(double x) { return (x > 0) - (x < 0); }

// The directed result from the nearest one. Overflow fits the same rule: a
// finite exact value that rounded to ±inf has a residual toward zero, so .rz
// steps back to the largest finite value and .rp keeps +inf.
template <class F> F step_directed(F nearest, int residual, Round r)
{
    if (residual == 0 || std::isnan(nearest)) return nearest;
    constexpr F inf = std::numeric_limits<F>::infinity();
    switch (r) {
    case Round::Rp: return residual > 0 ? std::nextafter(nearest, inf) : nearest;
    case Round::Rm: return residual < 0 ? std::nextafter(nearest, -inf) : nearest;
    case Round::Rz: return nearest != 0 && (residual > 0) != (nearest > 0) ? std::nextafter(nearest, F(0)) : nearest;
    default: return nearest;
    }
}

// s + e == a + b exactly (Knuth's TwoSum), for finite a, b whose sum does not overflow.
inline double two_sum_error(double a, double b, double s)
{
    const double bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

// The sign of a sum of doubles, exactly: Shewchuk's Grow-Expansion keeps every
// rounding error of the running sum as a term, so the terms stay an exact,
// nonoverlapping sum whose largest nonzero term has the sum's sign
// (Shewchuk, "Adaptive Precision Floating-Point Arithmetic", 1997).
inline int exact_sign_of_sum(std::initializer_list<double> terms)
{
    double e[8];
    int n = 0;
    for (double b : terms) {
        double q = b;
        for (int i = 0; i < n; ++i) {
            const double s = q + e[i];
            e[i] = two_sum_error(q, e[i], s);
            q = s;
        }
        e[n++] = q;
    }
    for (int i = n - 1; i >= 0; --i)
        if (e[i] != 0) return sign_of(e[i]);
    return 0;
}

// ---- double operations, rounded to nearest, with the sign of the residual.
// Products, quotients and roots scale their operands to [0.5, 1) first (exact),
// so that the FMA residual never underflows.

// x + y; an exact zero is -0 under .rm unless both operands are +0 (IEEE 754 6.3).
inline Nearest add_nearest(double x, double y, Round r)
{
    const double s = x + y;
    if (std::isinf(s)) return {s, std::isfinite(x) && std::isfinite(y) ? -sign_of(s) : 0};  // overflow
    if (std::isnan(s)) return {s, 0};
    const int residual = sign_of(two_sum_error(x, y, s));
    if (s == 0 && residual == 0 && r == Round::Rm && (std::signbit(x) || std::signbit(y) || x != 0)) return {-0.0, 0};
    return {s, residual};
}

// The sign of x*y - d for finite nonzero x, y and finite d near x*y.
inline int product_residual(double x, double y, double d)
{
    int ex, ey;
    const double mx = std::frexp(x, &ex), my = std::frexp(y, &ey);
    return sign_of(std::fma(mx, my, -std::ldexp(d, -(ex + ey))));
}

inline bool finite_nonzero(double x) { return std::isfinite(x) && x != 0; }

inline Nearest mul_nearest(double x, double y)
{
    const double p = x * y;
    if (!finite_nonzero(x) || !finite_nonzero(y)) return {p, 0};  // zeros, infinities and NaN are exact
    if (std::isinf(p)) return {p, -sign_of(p)};
    return {p, product_residual(x, y, p)};
}

// x / y: the exact quotient exceeds q where the remainder x - q*y has y's sign.
inline Nearest div_nearest(double x, double y)
{
    const double q = x / y;
    if (!finite_nonzero(x) || !finite_nonzero(y)) return {q, 0};
    if (std::isinf(q)) return {q, -sign_of(q)};
    int ex, ey;
    const double mx = std::frexp(x, &ex), my = std::frexp(y, &ey);
    return {q, sign_of(std::fma(-std::ldexp(q, ey - ex), my, mx)) * sign_of(y)};
}

// sqrt(x): the exact root exceeds s where x - s*s > 0; x scaled by an even power of 2.
inline Nearest sqrt_nearest(double x)
{
    const double s = std::sqrt(x);
    if (!finite_nonzero(x) || x < 0) return {s, 0};
    int e;
    const double m = std::frexp(x, &e);
    const int half = (e - (e & 1)) / 2;  // x = m' * 2^(2 half), m' = m or 2m, in [0.5, 2)
    return {s, sign_of(std::fma(-std::ldexp(s, -half), std::ldexp(s, -half), std::ldexp(m, e - 2 * half)))};
}

// x*y + z rounded once. Where the terms' magnitudes are far apart (2^960),
// the smaller one only breaks a tie of the larger: its sign decides alone.
inline Nearest fma_nearest(double x, double y, double z, Round r)
{
    const double d = std::fma(x, y, z);
    if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z) || std::isnan(d)) return {d, 0};
    if (std::isinf(d)) return {d, -sign_of(d)};
    if (x == 0 || y == 0) return add_nearest(x * y, z, r);  // the product is an exact (signed) zero
    if (z == 0) return mul_nearest(x, y);                   // d is x*y rounded
    int ex, ey, ez;
    const double mx = std::frexp(x, &ex), my = std::frexp(y, &ey);
    std::frexp(z, &ez);
    const int e = ex + ey;  // |x*y| in [2^(e-2), 2^e), |z| in [2^(ez-1), 2^ez)
    if (ez - e > 960) return {d, sign_of(x) * sign_of(y)};  // |x*y| < ulp(z)/4: d == z
    if (e - ez > 960) {
        const int p = product_residual(x, y, d);  // x*y - d, when nonzero, outweighs z
        return {d, p != 0 ? p : sign_of(z)};
    }
    // Scaled by 2^k so the larger term is near 1: every term below is then exact
    // (the smaller one at least 2^-961, the product's error term above 2^-969).
    const int k = -std::max(e, ez);
    const double px = std::ldexp(mx, e + k);
    const double p = px * my, pe = std::fma(px, my, -p);
    const int residual = exact_sign_of_sum({p, pe, std::ldexp(z, k), -std::ldexp(d, k)});
    if (d == 0 && residual == 0 && r == Round::Rm) return {-0.0, 0};  // an exact cancellation
    return {d, residual};
}

// ---- narrower formats from a double and its residual

// To float: the float nearest to d; where that equals d, the residual of d is
// the residual of the float, else d's side of it is.
inline float float_directed(Nearest n, Round r)
{
    const auto f = static_cast<float>(n.value);
    const double back = f;  // +-inf where d overflowed float
    return step_directed(f, n.value > back ? 1 : n.value < back ? -1 : n.residual, r);
}

// Half's neighbour one step toward +inf (up) or -inf.
inline std::uint16_t half_step(std::uint16_t h, bool up)
{
    if ((h & 0x7FFF) == 0) return up ? 0x0001 : 0x8001;  // from a zero, the smallest subnormal
    return static_cast<std::uint16_t>(((h & 0x8000) == 0) == up ? h + 1 : h - 1);
}

inline std::uint16_t half_directed(Nearest n, Round r)
{
    const std::uint16_t h = double_to_half(n.value);
    const double back = half_to_float(h);
    const int residual = n.value > back ? 1 : n.value < back ? -1 : n.residual;
    if (residual == 0 || std::isnan(n.value)) return h;
    const bool negative = h & 0x8000, toward_zero = (residual > 0) == negative;
    if ((r == Round::Rp && residual > 0) || (r == Round::Rm && residual < 0) || (r == Round::Rz && toward_zero && (h & 0x7FFF) != 0))
        return half_step(h, residual > 0);
    return h;
}

// bf16 from float: its grid is a subset of float's, so directed roundings
// compose: the float rounded in the mode, then cut to 16 bits in the mode.
inline std::uint16_t bf16_directed(Nearest n, Round r)
{
    const float f = float_directed(n, r);
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if (std::isnan(f)) return kCanonicalNan16;
    const auto high = static_cast<std::uint16_t>(u >> 16);
    const bool negative = u >> 31, away = (r == Round::Rp && !negative) || (r == Round::Rm && negative);
    return (u & 0xFFFF) != 0 && away ? static_cast<std::uint16_t>(high + 1) : high;
}

// bf16 rounded to nearest once. Through float rounded to odd (toward zero, its
// last bit set where that dropped anything): its 16 bits more than bf16 keep a
// value off bf16's midpoints, so the second rounding is the only one (Boldo
// and Melquiond, "Emulation of FMA and correctly rounded sums: proved
// algorithms using rounding to odd", 2008). Through float rounded to nearest,
// an fma just off a midpoint lands on it and then ties to even.
inline std::uint16_t bf16_nearest(Nearest n)
{
    if (std::isnan(n.value)) return kCanonicalNan16;
    const float toward_zero = float_directed(n, Round::Rz);
    const bool exact = static_cast<double>(toward_zero) == n.value && n.residual == 0;
    const std::uint32_t odd = std::bit_cast<std::uint32_t>(toward_zero) | (exact ? 0u : 1u);
    return float_to_bf16(std::bit_cast<float>(odd));
}

// An integer to double, rounded to nearest, and the sign of what was dropped
// (64-bit integers above 2^53 do not all fit).
inline Nearest int_nearest(std::int64_t i)
{
    const auto d = static_cast<double>(i);
    if (d >= 0x1p63) return {d, -1};  // i <= 2^63 - 1 rounded up to 2^63
    const auto back = static_cast<std::int64_t>(d);
    return {d, (i > back) - (i < back)};
}
inline Nearest uint_nearest(std::uint64_t u)
{
    const auto d = static_cast<double>(u);
    if (d >= 0x1p64) return {d, -1};
    const auto back = static_cast<std::uint64_t>(d);
    return {d, (u > back) - (u < back)};
}

}  // namespace wl::ptx::detail
