// Directed rounding (.rz, .rm, .rp) computed in software (rounding.h), and
// binary16 conversions without the host's _Float16: hand-derived cases, the
// interpreter on hand-written PTX (no nvcc needed), and, where this host
// honours fesetround, seeded random operands against the host's own rounding.
#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "ptx_test_util.h"
#include "rounding.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"
#include "warplab/random.h"

namespace {

using wl::ptx::testing::ptx_module;
using namespace wl::ptx::detail;
using R = wl::ptx::detail::Round;

std::uint32_t fbits(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t dbits(double d) { return std::bit_cast<std::uint64_t>(d); }
float f32_of(Nearest n, R r) { return float_directed(n, r); }
double f64_of(Nearest n, R r) { return step_directed(n.value, n.residual, r); }

// 1 + 2^-30 lies between the floats 1 and 1 + 2^-23, nearer 1: .rn and .rm
// and .rz give 1 (0x3F800000), .rp 1 + 2^-23 (0x3F800001). Its negative
// mirrors it: .rm gives -(1 + 2^-23). 1 - 2^-30 lies between 1 - 2^-24 (the
// float below 1: the spacing halves below a power of two) and 1: .rz and .rm
// give 0x3F7FFFFF, .rn and .rp 1.
TEST(DirectedRounding, FloatAddStepsBySideOfTheExactSum)
{
    const double one = 1.0, tiny = std::ldexp(1.0, -30);
    EXPECT_EQ(fbits(f32_of(add_nearest(one, tiny, R::Rp), R::Rp)), 0x3F800001u);
    EXPECT_EQ(fbits(f32_of(add_nearest(one, tiny, R::Rm), R::Rm)), 0x3F800000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(one, tiny, R::Rz), R::Rz)), 0x3F800000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(one, tiny, R::Rn), R::Rn)), 0x3F800000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(-one, -tiny, R::Rm), R::Rm)), 0xBF800001u);
    EXPECT_EQ(fbits(f32_of(add_nearest(-one, -tiny, R::Rp), R::Rp)), 0xBF800000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(one, -tiny, R::Rz), R::Rz)), 0x3F7FFFFFu);
    EXPECT_EQ(fbits(f32_of(add_nearest(one, -tiny, R::Rm), R::Rm)), 0x3F7FFFFFu);
    EXPECT_EQ(fbits(f32_of(add_nearest(one, -tiny, R::Rp), R::Rp)), 0x3F800000u);
}

// FLT_MAX + FLT_MAX = 2^129 - 2^105 overflows: .rp gives +inf, .rz and .rm the
// largest float (0x7F7FFFFF); negated, .rm gives -inf and .rp -FLT_MAX.
// FLT_MAX + 2^103 is exactly half an ulp (2^104) above FLT_MAX: .rn's tie goes
// to the even neighbour, +inf; .rz stays at FLT_MAX. x + (-x) is +0 in every
// mode but .rm, where it is -0.
TEST(DirectedRounding, OverflowAndSignedZero)
{
    const double max = 0x1.fffffep127;
    EXPECT_EQ(fbits(f32_of(add_nearest(max, max, R::Rp), R::Rp)), 0x7F800000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(max, max, R::Rz), R::Rz)), 0x7F7FFFFFu);
    EXPECT_EQ(fbits(f32_of(add_nearest(max, max, R::Rm), R::Rm)), 0x7F7FFFFFu);
    EXPECT_EQ(fbits(f32_of(add_nearest(-max, -max, R::Rm), R::Rm)), 0xFF800000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(-max, -max, R::Rp), R::Rp)), 0xFF7FFFFFu);
    EXPECT_EQ(fbits(f32_of(add_nearest(max, 0x1p103, R::Rn), R::Rn)), 0x7F800000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(max, 0x1p103, R::Rz), R::Rz)), 0x7F7FFFFFu);
    EXPECT_EQ(fbits(f32_of(add_nearest(2.5, -2.5, R::Rm), R::Rm)), 0x80000000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(2.5, -2.5, R::Rp), R::Rp)), 0x00000000u);
    EXPECT_EQ(fbits(f32_of(add_nearest(0.0, 0.0, R::Rm), R::Rm)), 0x00000000u);  // +0 + +0 stays +0
    EXPECT_EQ(dbits(f64_of(add_nearest(0x1p1000, 0x1p1023 * 1.9999999999999998, R::Rz), R::Rz)), 0x7FEFFFFFFFFFFFFFull);
}

// (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: .rz/.rm 1 + 2^-22 (0x3F800002), .rp one
// ulp more (0x3F800003). 2^-75 * 2^-75 = 2^-150 is half the smallest
// subnormal 2^-149: .rn's tie gives +0 (even), .rp 2^-149; negated, .rm -2^-149
// and .rp -0. In double, 2^-600 * 2^-500 = 2^-1100 is below half of 2^-1074:
// .rn gives 0, .rp 2^-1074.
TEST(DirectedRounding, ProductsIncludingUnderflow)
{
    const double a = 1.0 + 0x1p-23;
    EXPECT_EQ(fbits(f32_of(mul_nearest(a, a), R::Rz)), 0x3F800002u);
    EXPECT_EQ(fbits(f32_of(mul_nearest(a, a), R::Rp)), 0x3F800003u);
    EXPECT_EQ(fbits(f32_of(mul_nearest(0x1p-75, 0x1p-75), R::Rn)), 0x00000000u);
    EXPECT_EQ(fbits(f32_of(mul_nearest(0x1p-75, 0x1p-75), R::Rp)), 0x00000001u);
    EXPECT_EQ(fbits(f32_of(mul_nearest(-0x1p-75, 0x1p-75), R::Rm)), 0x80000001u);
    EXPECT_EQ(fbits(f32_of(mul_nearest(-0x1p-75, 0x1p-75), R::Rp)), 0x80000000u);
    EXPECT_EQ(dbits(f64_of(mul_nearest(0x1p-600, 0x1p-500), R::Rn)), 0u);
    EXPECT_EQ(dbits(f64_of(mul_nearest(0x1p-600, 0x1p-500), R::Rp)), 1u);
    EXPECT_EQ(dbits(f64_of(mul_nearest(0x1p-600, 0x1p-500), R::Rm)), 0u);
}

// 1/3 = 0.010101..._2. In float, 24 bits of it and the rest (0.1010..._2 of an
// ulp, above half) make .rn round up to 0x3EAAAAAB; .rz/.rm give 0x3EAAAAAA.
// In double the 53 bits end where the rest is 0.0101..._2 of an ulp, below
// half: .rn truncates to 0x3FD5555555555555 and .rp gives ...56. sqrt(2):
// 0x3FB504F3 squared is below 2 and 0x3FB504F4 squared above (checked with
// exact fractions), so .rm gives the former and .rp the latter; in double,
// 0x3FF6A09E667F3BCD is above sqrt(2): .rz gives ...CC.
TEST(DirectedRounding, QuotientsAndRoots)
{
    EXPECT_EQ(fbits(f32_of(div_nearest(1.0, 3.0), R::Rz)), 0x3EAAAAAAu);
    EXPECT_EQ(fbits(f32_of(div_nearest(1.0, 3.0), R::Rp)), 0x3EAAAAABu);
    EXPECT_EQ(fbits(f32_of(div_nearest(-1.0, 3.0), R::Rm)), 0xBEAAAAABu);
    EXPECT_EQ(dbits(f64_of(div_nearest(1.0, 3.0), R::Rp)), 0x3FD5555555555556ull);
    EXPECT_EQ(dbits(f64_of(div_nearest(1.0, 3.0), R::Rm)), 0x3FD5555555555555ull);
    EXPECT_EQ(dbits(f64_of(div_nearest(1.0, -3.0), R::Rp)), 0xBFD5555555555555ull);
    EXPECT_EQ(fbits(f32_of(sqrt_nearest(2.0), R::Rm)), 0x3FB504F3u);
    EXPECT_EQ(fbits(f32_of(sqrt_nearest(2.0), R::Rp)), 0x3FB504F4u);
    EXPECT_EQ(dbits(f64_of(sqrt_nearest(2.0), R::Rz)), 0x3FF6A09E667F3BCCull);
    EXPECT_EQ(dbits(f64_of(sqrt_nearest(2.0), R::Rp)), 0x3FF6A09E667F3BCDull);
    EXPECT_EQ(dbits(f64_of(sqrt_nearest(0x1p-1074), R::Rn)), dbits(0x1p-537));  // exact: residual 0
    EXPECT_EQ(dbits(f64_of(sqrt_nearest(0x1p-1074), R::Rp)), dbits(0x1p-537));
}

// fma(1 + 2^-52, 1 + 2^-52, -1) = 2^-51 + 2^-104: exactly half an ulp of
// 2^-51 (ulp 2^-103) above it; .rn's tie keeps the even 2^-51, .rp steps up.
// fma(2^-1000, 2^-1000, 1): the product, 2^-2000, is far below any double,
// yet under .rp it lifts 1 to 1 + 2^-52; a negative product under .rm lowers
// it to 1 - 2^-53. An exact cancellation is -0 under .rm.
TEST(DirectedRounding, FusedMultiplyAdd)
{
    const double a = 1.0 + 0x1p-52;
    EXPECT_EQ(f64_of(fma_nearest(a, a, -1.0, R::Rn), R::Rn), 0x1p-51);
    EXPECT_EQ(f64_of(fma_nearest(a, a, -1.0, R::Rp), R::Rp), 0x1p-51 + 0x1p-103);
    EXPECT_EQ(f64_of(fma_nearest(0x1p-1000, 0x1p-1000, 1.0, R::Rp), R::Rp), 1.0 + 0x1p-52);
    EXPECT_EQ(f64_of(fma_nearest(0x1p-1000, 0x1p-1000, 1.0, R::Rm), R::Rm), 1.0);
    EXPECT_EQ(f64_of(fma_nearest(-0x1p-1000, 0x1p-1000, 1.0, R::Rm), R::Rm), 1.0 - 0x1p-53);
    EXPECT_EQ(f64_of(fma_nearest(-0x1p-1000, 0x1p-1000, 1.0, R::Rz), R::Rz), 1.0 - 0x1p-53);
    EXPECT_EQ(f64_of(fma_nearest(0x1p500, 0x1p500, -0x1p-100, R::Rz), R::Rz), std::nextafter(0x1p1000, 0.0));
    EXPECT_TRUE(std::signbit(f64_of(fma_nearest(2.0, 3.0, -6.0, R::Rm), R::Rm)));
    EXPECT_FALSE(std::signbit(f64_of(fma_nearest(2.0, 3.0, -6.0, R::Rp), R::Rp)));
}

// Half: 1 + 2^-20 is below half an ulp (2^-11) above 1 (0x3C00): .rp gives
// 0x3C01; -(1 + 2^-20) under .rm gives 0xBC01. 65519 is below 65520, the
// midpoint between the largest half 65504 (0x7BFF) and 2^16: .rn gives 65504,
// .rp +inf; 65520 itself ties to even, +inf, and .rz keeps 65504. 2^-25 is half
// the smallest subnormal: .rn 0, .rp 0x0001. bf16 cuts a float: 1 + 2^-10 under
// .rp is 0x3F81, under .rz 0x3F80; -(1 + 2^-10) under .rm 0xBF81.
TEST(DirectedRounding, HalfAndBf16)
{
    const double up = 1.0 + 0x1p-20;
    EXPECT_EQ(half_directed({up, 0}, R::Rn), 0x3C00u);
    EXPECT_EQ(half_directed({up, 0}, R::Rp), 0x3C01u);
    EXPECT_EQ(half_directed({-up, 0}, R::Rm), 0xBC01u);
    EXPECT_EQ(half_directed({-up, 0}, R::Rz), 0xBC00u);
    EXPECT_EQ(half_directed({65519.0, 0}, R::Rn), 0x7BFFu);
    EXPECT_EQ(half_directed({65519.0, 0}, R::Rp), 0x7C00u);
    EXPECT_EQ(half_directed({65520.0, 0}, R::Rn), 0x7C00u);
    EXPECT_EQ(half_directed({65520.0, 0}, R::Rz), 0x7BFFu);
    EXPECT_EQ(half_directed({0x1p-25, 0}, R::Rn), 0x0000u);
    EXPECT_EQ(half_directed({0x1p-25, 0}, R::Rp), 0x0001u);
    EXPECT_EQ(half_directed({1.0, 1}, R::Rp), 0x3C01u);  // a residual alone moves an exact-looking value
    EXPECT_EQ(half_directed({1.0, -1}, R::Rz), 0x3BFFu);
    EXPECT_EQ(bf16_directed({1.0 + 0x1p-10, 0}, R::Rp), 0x3F81u);
    EXPECT_EQ(bf16_directed({1.0 + 0x1p-10, 0}, R::Rz), 0x3F80u);
    EXPECT_EQ(bf16_directed({-1.0 - 0x1p-10, 0}, R::Rm), 0xBF81u);
}

// Integers beyond 2^53: 2^53 + 1 is a tie between 2^53 and 2^53 + 2; .rn
// keeps the even 2^53, .rp gives 2^53 + 2. INT64_MAX rounds to nearest 2^63,
// above it: .rz gives 2^63 - 1024. UINT64_MAX: .rz gives 2^64 - 2048.
TEST(DirectedRounding, IntegersToDouble)
{
    const std::int64_t i = (std::int64_t(1) << 53) + 1;
    EXPECT_EQ(f64_of(int_nearest(i), R::Rn), 0x1p53);
    EXPECT_EQ(f64_of(int_nearest(i), R::Rp), 0x1p53 + 2);
    EXPECT_EQ(f64_of(int_nearest(-i), R::Rm), -0x1p53 - 2);
    EXPECT_EQ(f64_of(int_nearest(INT64_MAX), R::Rz), 0x1p63 - 1024);
    EXPECT_EQ(f64_of(uint_nearest(UINT64_MAX), R::Rz), 0x1p64 - 2048);
    EXPECT_EQ(f32_of(uint_nearest(UINT64_MAX), R::Rz), 0x1p64f - 0x1p40f);
}

// binary16 in software: hand-derived values, then (where the host has
// _Float16) every half against the host's conversion, and floats across the
// whole range, ties included.
TEST(HalfConversion, HandDerived)
{
    EXPECT_EQ(float_to_half(0.1f), 0x2E66u);  // 0.1 = 1.6 x 2^-4: 0.6 x 1024 = 614.4 -> 614 = 0x266, exponent 11
    EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00u);           // tie, to even
    EXPECT_EQ(float_to_half(1.0f + 0x1p-10f + 0x1p-11f), 0x3C02u);  // tie, to even (up)
    EXPECT_EQ(float_to_half(0x1p-24f), 0x0001u);                  // the smallest subnormal
    EXPECT_EQ(float_to_half(0x1p-25f), 0x0000u);                  // half of it: tie to even, 0
    EXPECT_EQ(float_to_half(0x1.8p-25f), 0x0001u);                // above the tie
    EXPECT_EQ(float_to_half(-0.0f), 0x8000u);
    EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);
    EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
    EXPECT_EQ(fbits(half_to_float(0x7C01)), 0x7FC02000u);  // a NaN: payload kept, made quiet
    EXPECT_EQ(double_to_half(0x1p-14 - 0x1p-25), 0x0400u);  // rounds up into the smallest normal
}

#ifdef __FLT16_MAX__
TEST(HalfConversion, MatchesTheHostsFloat16)
{
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const auto u = static_cast<std::uint16_t>(h);
        ASSERT_EQ(fbits(half_to_float(u)), fbits(static_cast<float>(std::bit_cast<_Float16>(u)))) << std::hex << h;
    }
    // Every float exponent from 2^-27 to 2^17 with 12 mantissa patterns around
    // each half rounding point (the tie, one float ulp either side), and seeded others.
    wl::Random rng(33);
    for (int e = -27; e <= 17; ++e)
        for (std::uint32_t m = 0; m < 4096; ++m) {
            const std::uint32_t base = std::uint32_t(e + 127) << 23 | m << 11;
            for (std::uint32_t bits : {base, base | 0x400, base | 0x3FF, base | 0x401, base | std::uint32_t(rng.next() & 0x7FF)}) {
                for (std::uint32_t sign : {0u, 0x80000000u}) {
                    const float f = std::bit_cast<float>(bits | sign);
                    ASSERT_EQ(float_to_half(f), std::bit_cast<std::uint16_t>(static_cast<_Float16>(f))) << f;
                    ASSERT_EQ(double_to_half(double(f) + 0x1p-60 * f),
                              std::bit_cast<std::uint16_t>(static_cast<_Float16>(double(f) + 0x1p-60 * f)))
                        << f;
                }
            }
        }
}
#endif

// Seeded random operands, each operation and mode against the host's own
// directed rounding, where the host honours fesetround (x86-64 and AArch64
// do; WebAssembly does not, and skips). volatile keeps the compiler from
// moving the operations out of the mode.
template <class F> F host_directed(int mode, F a, F b, F c, int op)
{
    volatile F x = a, y = b, z = c, r;
    std::fesetround(mode);
    switch (op) {
    case 0: r = x + y; break;
    case 1: r = x * y; break;
    case 2: r = x / y; break;
    case 3: r = std::fma(F(x), F(y), F(z)); break;
    default: r = std::sqrt(F(x)); break;
    }
    std::fesetround(FE_TONEAREST);
    return r;
}

bool host_honours_rounding_modes()
{
    volatile float one = 1.0f, tiny = 0x1p-30f;
    if (std::fesetround(FE_UPWARD) != 0) return false;
    volatile float up = one + tiny;  // stored before the mode is set back
    std::fesetround(FE_TONEAREST);
    return up == 1.0f + 0x1p-23f;
}

Nearest software(int op, double a, double b, double c, R r)
{
    switch (op) {
    case 0: return add_nearest(a, b, r);
    case 1: return mul_nearest(a, b);
    case 2: return div_nearest(a, b);
    case 3: return fma_nearest(a, b, c, r);
    default: return sqrt_nearest(a);
    }
}

// Operands with close exponents (so sums round), far ones (float 2^-70 ..
// 2^70, double 2^-500 .. 2^500: subnormal and overflowing results), and near
// cancellations.
template <class F> F operand(wl::Random& rng, int spread)
{
    const F m = F(rng.uniform_float(1.0f, 2.0f)) + F(rng.uniform_float(0.0f, 1.0f)) * F(0x1p-24);
    const F x = std::ldexp(m, int(rng.uniform_int(-spread, spread)));
    return rng.uniform_int(0, 3) == 0 ? -x : x;
}

TEST(DirectedRounding, MatchesTheHostsRoundingOnSeededOperands)
{
    if (!host_honours_rounding_modes()) GTEST_SKIP() << "this host ignores fesetround: nothing to compare with";
    const std::pair<int, R> modes[] = {{FE_UPWARD, R::Rp}, {FE_DOWNWARD, R::Rm}, {FE_TOWARDZERO, R::Rz}};
    wl::Random rng(20261127);
    int compared = 0;
    for (int k = 0; k < 6000; ++k) {
        const int op = k % 5, spread = k % 3 == 0 ? 70 : 4;
        for (auto [mode, r] : modes) {
            float a = operand<float>(rng, spread), b = operand<float>(rng, spread), c = operand<float>(rng, spread);
            if (k % 7 == 0) c = -a * b;  // may cancel the product exactly
            if (op == 4) a = std::fabs(a);
            const float want = host_directed<float>(mode, a, b, c, op);
            const float got = float_directed(software(op, a, b, c, r), r);
            ASSERT_EQ(fbits(got), fbits(want)) << "float op " << op << " mode " << mode << ": " << a << ", " << b << ", " << c;
            const int dspread = spread == 4 ? 4 : 500;
            double x = operand<double>(rng, dspread), y = operand<double>(rng, dspread), z = operand<double>(rng, dspread);
            if (k % 7 == 0) z = -x * y;
            if (op == 4) x = std::fabs(x);
            const double dwant = host_directed<double>(mode, x, y, z, op);
            const Nearest n = software(op, x, y, z, r);
            ASSERT_EQ(dbits(step_directed(n.value, n.residual, r)), dbits(dwant))
                << "double op " << op << " mode " << mode << ": " << x << ", " << y << ", " << z;
            compared += 2;
        }
    }
    EXPECT_EQ(compared, 36000);
}

// The interpreter's instructions, on hand-written PTX: each row one operation
// in one mode from the cases above, read from memory so nothing is folded.
const std::string kRounding = ptx_module(R"(
.visible .entry rounding(.param .u64 p_in, .param .u64 p_din, .param .u64 p_out, .param .u64 p_dout)
{
	.reg .f32 	%f<8>;
	.reg .f64 	%fd<8>;
	.reg .b16 	%h<2>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [p_in];
	ld.param.u64 	%rd2, [p_din];
	ld.param.u64 	%rd3, [p_out];
	ld.param.u64 	%rd4, [p_dout];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	cvta.to.global.u64 	%rd3, %rd3;
	cvta.to.global.u64 	%rd4, %rd4;
	ld.global.f32 	%f1, [%rd1];
	ld.global.f32 	%f2, [%rd1+4];
	ld.global.f32 	%f3, [%rd1+8];
	ld.global.f32 	%f4, [%rd1+12];
	ld.global.f32 	%f5, [%rd1+16];
	add.rp.f32 	%f6, %f1, %f2;
	st.global.f32 	[%rd3], %f6;
	sub.rz.f32 	%f6, %f1, %f2;
	st.global.f32 	[%rd3+4], %f6;
	div.rz.f32 	%f6, %f1, %f3;
	st.global.f32 	[%rd3+8], %f6;
	div.rp.f32 	%f6, %f1, %f3;
	st.global.f32 	[%rd3+12], %f6;
	sqrt.rp.f32 	%f6, %f4;
	st.global.f32 	[%rd3+16], %f6;
	mul.rp.f32 	%f6, %f5, %f5;
	st.global.f32 	[%rd3+20], %f6;
	fma.rm.f32 	%f6, %f5, %f5, %f2;
	st.global.f32 	[%rd3+24], %f6;
	cvt.rp.f16.f32 	%h1, %f5;
	cvt.u32.u16 	%r1, %h1;
	st.global.u32 	[%rd3+28], %r1;
	ld.global.f64 	%fd1, [%rd2];
	ld.global.f64 	%fd2, [%rd2+8];
	ld.global.f64 	%fd3, [%rd2+16];
	ld.global.f64 	%fd7, [%rd2+24];
	cvt.rm.f32.f64 	%f6, %fd7;
	st.global.f32 	[%rd3+32], %f6;
	fma.rp.f64 	%fd4, %fd2, %fd2, %fd1;
	st.global.f64 	[%rd4], %fd4;
	fma.rm.f64 	%fd5, %fd2, %fd2, %fd1;
	st.global.f64 	[%rd4+8], %fd5;
	rcp.rp.f64 	%fd6, %fd3;
	st.global.f64 	[%rd4+16], %fd6;
	ret;
}
)");

// in: 1, 2^-30, 3, 2, 1 + 2^-23; din: 1, 2^-1000, 3, 1/3 (rcp.rp of 3 is
// 0x3FD5555555555556 and cvt.rm of the double 1/3 to float 0x3EAAAAAA, see
// QuotientsAndRoots: the double lies between the floats ...AA and ...AB). fma.rm.f32 of
// (1 + 2^-23)^2 + 2^-30 = 1 + 2^-22 + 2^-30 + 2^-46 is 1 + 2^-22; cvt.rp.f16
// of 1 + 2^-23 is 0x3C01.
TEST(DirectedRounding, InterpreterInstructions)
{
    const auto m = wl::ptx::Module::parse(kRounding, "rounding.ptx");
    wl::emu::Emulator emu;
    float* in = emu.alloc<float>(5);
    const float fin[5] = {1.0f, 0x1p-30f, 3.0f, 2.0f, 1.0f + 0x1p-23f};
    std::memcpy(in, fin, sizeof fin);
    double* din = emu.alloc<double>(4);
    const double dvals[4] = {1.0, 0x1p-1000, 3.0, 1.0 / 3.0};
    std::memcpy(din, dvals, sizeof dvals);
    std::uint32_t* out = emu.alloc<std::uint32_t>(9);
    std::uint64_t* dout = emu.alloc<std::uint64_t>(3);
    wl::ptx::launch(emu, m, "rounding", dim3(1), dim3(1), 0, in, din, out, dout);
    const std::uint32_t want[9] = {0x3F800001, 0x3F7FFFFF, 0x3EAAAAAA, 0x3EAAAAAB, 0x3FB504F4,
                                   0x3F800003, 0x3F800002, 0x3C01,     0x3EAAAAAA};
    for (int i = 0; i < 9; ++i) EXPECT_EQ(out[i], want[i]) << "out[" << i << "]";
    EXPECT_EQ(dout[0], dbits(1.0 + 0x1p-52));
    EXPECT_EQ(dout[1], dbits(1.0));
    EXPECT_EQ(dout[2], 0x3FD5555555555556ull);
}

}  // namespace
