// The BF16 check (matmul v14) is tight enough to catch a wrong product and
// loose enough for bf16's rounding of the inputs, on the CPU: a BF16 product
// is computed here as v14 computes it (each input rounded to bf16, to
// nearest even; the exact products summed in FP32), then put through the
// lab's check.
//
// Derivation, for K = 33 and inputs uniform in [-1, 1) (S = sum_k |a_ik b_kj|
// is about 33/4 = 8): rounding an input to bf16 (8 significant bits) moves it
// by at most 2^-8 of itself, a product by at most 2^-7 + 2^-16, so C by at
// most (2^-7 + 2^-16)·S, about 0.06: within the BF16 tolerance, whatever the
// data. The errors themselves are of the order of sqrt(33)·E|ab|·2^-9, about
// 3e-3, far outside the FP32 tolerance at K = 33 (33·2^-24·S, 1.6e-5). A
// product left out moves C by |a_ik b_kj|, which exceeds 0.06 with
// probability 1 - t + t·ln t = 0.76 for t = 1/16 (|a|, |b| uniform in
// [0, 1)): most elements fail.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "matmul/matmul_rounded_product.h"
#include "labs/matmul/problem.h"

namespace warplab::test {
namespace {

// x rounded to bf16 (its top 16 bits), to nearest, ties to even: add half of
// the dropped 16 bits' unit, less one unless the kept last bit is odd, and
// cut (the inputs here are finite and far from overflow).
float bf16_rounded(float x)
{
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
    return std::bit_cast<float>((bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u);
}

// C = A·B from bf16 inputs: exact products, sums in FP32.
std::vector<float> bf16_product(const matmul::Shape& s, const matmul::Inputs& in, std::size_t skip = SIZE_MAX)
{
    return rounded_product(s, in, bf16_rounded, skip);
}

// The rounding itself, on values worked out by hand: 1 + 2^-8 lies halfway
// between bf16's 1 and 1 + 2^-7 and goes to the even one (1); 1 + 3·2^-8
// lies halfway between 1 + 2^-7 and 1 + 2^-6 and goes to the even 1 + 2^-6;
// 1 + 2^-8 + 2^-20 is past halfway and goes up to 1 + 2^-7; -0.1 keeps its sign.
TEST(MatmulBf16Check, RoundsToNearestEven)
{
    EXPECT_EQ(bf16_rounded(1.0f + std::ldexp(1.0f, -8)), 1.0f);
    EXPECT_EQ(bf16_rounded(1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
    EXPECT_EQ(bf16_rounded(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 1.0f + std::ldexp(1.0f, -7));
    EXPECT_LT(bf16_rounded(-0.1f), 0.0f);
    EXPECT_LE(std::fabs(bf16_rounded(-0.1f) + 0.1f), 0.1 * std::ldexp(1.0, -8));
}

TEST(MatmulBf16Check, Bf16RoundingPassesOnlyTheBf16Bound)
{
    const matmul::Shape s{67, 45, 33};
    for (std::uint64_t seed : {1, 2, 3}) {
        const matmul::Inputs in = matmul::make_inputs(s, seed);
        const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
        const std::vector<float> c = bf16_product(s, in);
        const auto bf16 = matmul::compare(c, ref.c, ref.abs, matmul::tolerance(s.k, false, matmul::Arithmetic::Bf16));
        EXPECT_TRUE(bf16.ok) << "seed " << seed << ": " << bf16.text();
        EXPECT_LT(bf16.worst_ratio, 0.5) << "the deterministic bound has room to spare";
        const auto fp32 = matmul::compare(c, ref.c, ref.abs, matmul::tolerance(s.k, false));
        EXPECT_FALSE(fp32.ok) << "bf16 rounding is far outside the FP32 bound";
        EXPECT_GT(fp32.bad, s.m * s.n / 2);
        // ||C - exact|| / ||exact||: bf16's size, about 2^-8 / sqrt(3) per input.
        const double error = matmul::relative_error(c, ref.c);
        EXPECT_GT(error, 3e-4);
        EXPECT_LT(error, 1e-2);
    }
}

TEST(MatmulBf16Check, ADroppedProductFailsTheBf16Bound)
{
    const matmul::Shape s{67, 45, 33};
    const matmul::Inputs in = matmul::make_inputs(s, 7);
    const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
    const auto cmp = matmul::compare(bf16_product(s, in, 17), ref.c, ref.abs, matmul::tolerance(s.k, false, matmul::Arithmetic::Bf16));
    EXPECT_FALSE(cmp.ok);
    EXPECT_GT(cmp.bad, s.m * s.n / 2) << cmp.text();
}

// The BF16 bound adds 2^-7 + 2^-16 to FP32's gamma (twice FP32's against a
// float reference): K = 33 gives FP32's worst case 33·2^-24.
TEST(MatmulBf16Check, ToleranceIsFp32sPlusTheInputRounding)
{
    const double u = std::ldexp(1.0, -24), inputs = std::ldexp(1.0, -7) + std::ldexp(1.0, -16);
    EXPECT_DOUBLE_EQ(matmul::tolerance(33, false, matmul::Arithmetic::Bf16).gamma, 33 * u / (1 - 33 * u) + inputs);
    EXPECT_DOUBLE_EQ(matmul::tolerance(33, true, matmul::Arithmetic::Bf16).gamma, 2 * 33 * u / (1 - 33 * u) + inputs);
}

}  // namespace
}  // namespace warplab::test
