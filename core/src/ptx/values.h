// Values in register slots: the bit casts between slots and C++ types, the
// narrow float formats, widths and sign extension, comparisons, flushing and
// rounding modes. Inline: the hot forms use them.
#pragma once
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "module_impl.h"

namespace wl::ptx::detail {

inline std::uint32_t u32(std::uint64_t v) { return static_cast<std::uint32_t>(v); }
inline std::int32_t s32(std::uint64_t v) { return static_cast<std::int32_t>(v); }
inline float f32(std::uint64_t v) { return std::bit_cast<float>(static_cast<std::uint32_t>(v)); }
inline double f64(std::uint64_t v) { return std::bit_cast<double>(v); }
inline std::uint64_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }
#if defined(__wasm__)
// clang's WebAssembly target has no _Float16; its __fp16 converts the same way but is storage only.
inline float half_to_float(std::uint16_t h)
{
    __fp16 x;
    std::memcpy(&x, &h, 2);
    return x;
}
template <class F> std::uint16_t half_bits(F f)  // rounded once, from f's own precision
{
    const __fp16 x = static_cast<__fp16>(f);
    std::uint16_t h;
    std::memcpy(&h, &x, 2);
    return h;
}
inline std::uint16_t float_to_half(float f) { return half_bits(f); }
inline std::uint16_t double_to_half(double d) { return half_bits(d); }
#else
inline float half_to_float(std::uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }
inline std::uint16_t float_to_half(float f) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(f)); }
inline std::uint16_t double_to_half(double d) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(d)); }
#endif
inline float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }
inline std::uint16_t float_to_bf16(float f)
{
    std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if (std::isnan(f)) return 0x7FC0;
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

inline float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

inline int fenv_mode(Round r)
{
    switch (r) {
    case Round::Rz: case Round::Rzi: return FE_TOWARDZERO;
    case Round::Rm: case Round::Rmi: return FE_DOWNWARD;
    case Round::Rp: case Round::Rpi: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}
// A non-default rounding mode for the host's float operations while it lives.
struct RoundingScope {
    bool set;
    explicit RoundingScope(Round r) : set(r == Round::Rz || r == Round::Rm || r == Round::Rp)
    {
        if (set) std::fesetround(fenv_mode(r));
    }
    ~RoundingScope()
    {
        if (set) std::fesetround(FE_TONEAREST);
    }
};

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
