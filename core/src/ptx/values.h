// Values in register slots: the bit casts between slots and C++ types, the
// narrow float formats, widths and sign extension, comparisons, flushing and
// rounding to integers. Inline: the hot forms use them.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <type_traits>

#include "module_impl.h"

namespace wl::ptx::detail {

inline std::uint32_t u32(std::uint64_t v) { return static_cast<std::uint32_t>(v); }
inline std::int32_t s32(std::uint64_t v) { return static_cast<std::int32_t>(v); }
inline float f32(std::uint64_t v) { return std::bit_cast<float>(static_cast<std::uint32_t>(v)); }
inline double f64(std::uint64_t v) { return std::bit_cast<double>(v); }
inline std::uint64_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }

// rem.u32's a % b, b = 0 giving a (as the GPU's does). A power of two (tid % (2 * s), as many kernels
// write it) takes a mask instead of a division, tens of cycles a lane; 0 is one too: its mask keeps a.
inline std::uint32_t u32_remainder(std::uint32_t a, std::uint32_t b) { return (b & (b - 1)) == 0 ? a & (b - 1) : a % b; }

// NaN results as the GPU writes them. An H100's float units write one
// canonical NaN for every NaN they compute, whatever NaN went in: 0x7FFFFFFF
// for f32, 0x7FFF for f16 and bf16 (measured by the differential tests, whose
// generated kernels feed NaNs of every payload and sign). Arithmetic, min and
// max, the approximate functions and conversions into these formats all do
// (but f64 to f32, which keeps the top of a NaN's payload, and bf16 to f32,
// which widens by the bits); moves, selections, loads and stores pass a NaN's
// bits through. So every f32 result of a computation is written through
// f32_result, and every f16 and bf16 one through the rounding functions
// below, which end in the same rule. Doubles are not made canonical: the
// GPU's double units pass an operand's NaN through (f64_nan_kept says which),
// and neg and abs leave a double NaN as it is (sign included).
// PTX leaves neg's and abs's NaN unspecified: ptxas makes neg.f32 an add
// (canonical NaN) or, folded into a select, a sign flip (0xFFFFFFFF from
// the canonical NaN); the add is what generated kernels met most.
constexpr std::uint32_t kCanonicalNanF32 = 0x7FFF'FFFF;
constexpr std::uint16_t kCanonicalNan16 = 0x7FFF;  // f16 and bf16
inline std::uint64_t f32_result(float f) { return f != f ? kCanonicalNanF32 : bits(f); }

// The bits of a float or double.
template <class F> using bits_of = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;

// The first NaN of `in_order` (bits of F) made quiet, its sign and payload
// kept: the top bit of its fraction set, as x86 and the GPU's double units
// quiet a NaN. No NaN among them: 0.
template <class F> bits_of<F> first_nan(std::initializer_list<bits_of<F>> in_order)
{
    using U = bits_of<F>;
    constexpr U magnitude = std::numeric_limits<U>::max() >> 1;
    constexpr U infinity = std::bit_cast<U>(std::numeric_limits<F>::infinity());
    constexpr U quiet = U{1} << (std::numeric_limits<F>::digits - 2);
    for (U v : in_order)
        if ((v & magnitude) > infinity) return v | quiet;
    return 0;
}

// A double operation with a NaN operand gives that NaN made quiet, sign and
// payload kept (the GPU's double units, unlike its float ones, propagate it).
// Where several operands are NaN, PTX leaves open which one: the order here is
// the H100's on the differential tests' recorded kernels: a sum's, difference's
// and quotient's first operand before the second; a product's and an fma's
// multiplier b before a, then c. ptxas may commute a product's operands, so a
// kernel can meet the other order. Explicit, not the host's: x86 keeps its
// instruction's first source, which the compiler may swap, and AArch64 can
// give its default NaN instead. No NaN among them: 0.
//
// Which NaN the GPU keeps also depends on how ptxas placed the operands in its
// own instructions, which PTX does not fix: the differential tests accept a
// kernel whose words are those of the other choice. WARPLAB_NAN_OPERAND=last
// makes the emulator keep the last NaN of the same order instead, everywhere.
inline const bool kLastNanOperand = [] {
    const char* v = std::getenv("WARPLAB_NAN_OPERAND");
    return v != nullptr && std::string_view(v) == "last";
}();
inline std::uint64_t f64_nan_kept(std::initializer_list<std::uint64_t> in_order)
{
    if (!kLastNanOperand) return first_nan<double>(in_order);
    std::uint64_t kept = 0;
    for (std::uint64_t v : in_order)
        if (const std::uint64_t nan = first_nan<double>({v})) kept = nan;
    return kept;
}

// fma with a NaN operand gives the first NaN of a, b, c, made quiet, as
// glibc's fma does (x86's FMA3 keeps the NaN first in its form's formula: the
// 132 form, a * b + c, keeps a's, then b's, then c's).
template <class F> F library_fma(F a, F b, F c)
{
    using U = bits_of<F>;
    const U nan = first_nan<F>({std::bit_cast<U>(a), std::bit_cast<U>(b), std::bit_cast<U>(c)});
    return nan != 0 ? std::bit_cast<F>(nan) : std::fma(a, b, c);
}

// fma in one instruction where the host has one. The build targets every
// x86-64 (no -mfma), where std::fma is a call into the C library; so on x86-64
// the choice is made once, at start, by what the processor says it has (FMA3,
// with AVX usable); elsewhere, and without it, the library's fma.
#if defined(__x86_64__) && !defined(__FMA__)
inline const bool kHostFma = (__builtin_cpu_init(), __builtin_cpu_supports("fma"));
inline float fused(float a, float b, float c)
{
    if (!kHostFma) [[unlikely]]
        return library_fma(a, b, c);
    __asm__("vfmadd132ss %2, %3, %0" : "=x"(a) : "0"(a), "x"(b), "x"(c));  // a = a * b + c
    return a;
}
inline double fused(double a, double b, double c)
{
    if (!kHostFma) [[unlikely]]
        return library_fma(a, b, c);
    __asm__("vfmadd132sd %2, %3, %0" : "=x"(a) : "0"(a), "x"(b), "x"(c));
    return a;
}
#else
inline float fused(float a, float b, float c) { return library_fma(a, b, c); }
inline double fused(double a, double b, double c) { return library_fma(a, b, c); }
#endif
// IEEE binary16 in software: _Float16 is missing on some hosts (clang 14 on
// x86, 32-bit x86 without SSE2). A NaN keeps its sign and the top bits of its
// payload and becomes quiet, as the x86 conversions do.
inline float half_to_float(std::uint16_t h)
{
    const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000 | (mant ? 0x400000 | mant << 13 : 0));
    if (exp == 0) return sign ? -std::ldexp(float(mant), -24) : std::ldexp(float(mant), -24);  // exact
    return std::bit_cast<float>(sign | (exp + 127 - 15) << 23 | mant << 13);
}
// Rounded to nearest, ties to even, straight from the double's bits (a float
// widens exactly, so one function serves both): no double rounding, and no
// dependence on the host's rounding mode. A NaN becomes the canonical one.
inline std::uint16_t double_to_half(double d)
{
    const std::uint64_t u = std::bit_cast<std::uint64_t>(d), mant = u & ((std::uint64_t(1) << 52) - 1);
    const auto sign = static_cast<std::uint16_t>((u >> 48) & 0x8000);
    const int exp = int((u >> 52) & 0x7FF);
    if (exp == 0x7FF) return mant ? kCanonicalNan16 : static_cast<std::uint16_t>(sign | 0x7C00);
    if (exp == 0) return sign;  // zero or a double subnormal: far below half's smallest subnormal, 2^-24
    const int e = exp - 1023;
    if (e > 15) return static_cast<std::uint16_t>(sign | 0x7C00);
    // Half normals keep 10 fraction bits (drop 42 of the 52); subnormals count units
    // of 2^-24, so the significand 1.m x 2^e drops 28 - e bits (43 at e = -15).
    const std::uint64_t sig = e >= -14 ? mant : (std::uint64_t(1) << 52) | mant;
    const int drop = e >= -14 ? 42 : 28 - e;
    if (drop > 53) return sign;  // below 2^-25: rounds to zero
    const std::uint64_t kept = sig >> drop, rest = sig & ((std::uint64_t(1) << drop) - 1), half = std::uint64_t(1) << (drop - 1);
    const std::uint64_t base = e >= -14 ? std::uint64_t(e + 15) << 10 | kept : kept;
    const std::uint64_t rounded = base + (rest > half || (rest == half && (kept & 1)));  // a carry steps the exponent
    return static_cast<std::uint16_t>(sign | rounded);
}
inline std::uint16_t float_to_half(float f) { return double_to_half(f); }
inline float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }
inline std::uint16_t float_to_bf16(float f)
{
    std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if (std::isnan(f)) return kCanonicalNan16;
    u += 0x7FFF + ((u >> 16) & 1);  // round to nearest even
    return static_cast<std::uint16_t>(u >> 16);
}

inline std::uint64_t mask_to(Ty t, std::uint64_t v)
{
    switch (ty_bytes(t)) {
    case 1: return v & 0xFF;
    case 2: return v & 0xFFFF;
    case 4: return v & 0xFFFF'FFFF;
    default: return v;
    }
}
inline std::int64_t sext(Ty t, std::uint64_t v)
{
    switch (ty_bytes(t)) {
    case 1: return static_cast<std::int8_t>(v);
    case 2: return static_cast<std::int16_t>(v);
    case 4: return static_cast<std::int32_t>(v);
    default: return static_cast<std::int64_t>(v);
    }
}

// Ordered comparison of two non-NaN values (the unordered forms agree on those).
template <class T> inline bool compare_values(Cmp c, T x, T y)
{
    switch (c) {
    case Cmp::Eq: case Cmp::Equ: return x == y;
    case Cmp::Ne: case Cmp::Neu: return x != y;
    case Cmp::Lt: case Cmp::Lo: case Cmp::Ltu: return x < y;
    case Cmp::Le: case Cmp::Ls: case Cmp::Leu: return x <= y;
    case Cmp::Gt: case Cmp::Hi: case Cmp::Gtu: return x > y;
    case Cmp::Ge: case Cmp::Hs: case Cmp::Geu: return x >= y;
    default: return false;
    }
}

// setp.f32: the ordered comparisons are false with a NaN operand, the unordered ones true.
inline bool compare_floats(Cmp c, float x, float y)
{
    if (c == Cmp::Num) return !std::isnan(x) && !std::isnan(y);
    if (c == Cmp::Nan) return std::isnan(x) || std::isnan(y);
    if (std::isnan(x) || std::isnan(y)) return c >= Cmp::Equ;
    return compare_values(c, x, y);
}

// .sat: clamped to [+0, 1]; NaN and -0 give +0.
inline double saturated(double x) { return !(x > 0) ? 0.0 : x > 1 ? 1.0 : x; }

inline float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

inline double round_integer(double x, Round r)
{
    switch (r) {
    case Round::Rzi: return std::trunc(x);
    case Round::Rmi: return std::floor(x);
    case Round::Rpi: return std::ceil(x);
    default: return std::nearbyint(x);  // rni: to nearest even under the default mode
    }
}

}  // namespace wl::ptx::detail
