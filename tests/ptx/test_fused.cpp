// fma.rn as the interpreter computes it (values.h): one rounding, and a NaN
// operand's NaN chosen and quietened the same way whether the host's FMA3
// instruction or the C library computes it (an FMA3 form that multiplies b
// by a keeps b's NaN before a's, and fails the second test).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "values.h"

namespace {

using wl::ptx::detail::fused;
using wl::ptx::detail::library_fma;

TEST(Fused, RoundsOnce)
{
    // (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly. Rounded twice, the product
    // 1 - 2^-46 is within half an ulp of 1 (2^-24) and becomes 1, leaving 0.
    const float e = 0x1p-23f;
    EXPECT_EQ(fused(1 + e, 1 - e, -1.0f), -0x1p-46f);
    EXPECT_EQ(library_fma(1 + e, 1 - e, -1.0f), -0x1p-46f);
    const double d = 0x1p-52;  // the same in double: -2^-104
    EXPECT_EQ(fused(1 + d, 1 - d, -1.0), -0x1p-104);
    EXPECT_EQ(library_fma(1 + d, 1 - d, -1.0), -0x1p-104);
}

double double_of(std::uint64_t bits) { return std::bit_cast<double>(bits); }
std::uint64_t bits_of(double d) { return std::bit_cast<std::uint64_t>(d); }

TEST(Fused, ANaNOperandGivesTheFirstNaNQuietened)
{
    const double a = double_of(0x7FF8'0000'0000'0001), b = double_of(0xFFF8'0000'0000'0002);
    const double signalling_c = double_of(0x7FF0'0000'0000'0003);  // quiet bit (51) clear
    // a before b before c, whichever the host computes with
    for (auto fma_of : {+[](double x, double y, double z) { return fused(x, y, z); },
                        +[](double x, double y, double z) { return library_fma(x, y, z); }}) {
        EXPECT_EQ(bits_of(fma_of(a, b, signalling_c)), 0x7FF8'0000'0000'0001u);
        EXPECT_EQ(bits_of(fma_of(2.0, b, a)), 0xFFF8'0000'0000'0002u);
        EXPECT_EQ(bits_of(fma_of(2.0, 3.0, signalling_c)), 0x7FF8'0000'0000'0003u);  // made quiet
    }
    const float fa = std::bit_cast<float>(0x7FA0'0001u);  // a signalling float NaN
    EXPECT_EQ(std::bit_cast<std::uint32_t>(fused(1.0f, fa, 2.0f)), 0x7FE0'0001u);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(library_fma(1.0f, fa, 2.0f)), 0x7FE0'0001u);
}

}  // namespace
