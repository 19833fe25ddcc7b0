// wl::Random is specified: these values hold with any compiler and library.
#include <gtest/gtest.h>

#include <map>

#include "warplab/random.h"

// SplitMix64 from seed 0, by its published definition (Steele, Lea and
// Flood 2014; the same three numbers open Vigna's reference splitmix64.c's
// output for state 0): state += 0x9E3779B97F4A7C15, then the two
// xor-shift-multiply rounds and a final xor-shift.
TEST(Random, SplitMix64FromSeedZero)
{
    wl::Random r(0);
    EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
    EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ull);
    EXPECT_EQ(r.next(), 0x06C45D188009454Full);
}

// uniform_int(0, 9) takes next() % 10 unless the draw is in the top partial
// range (above 2^64 - 7, a chance of 6 in 2^64): 0xE220A8397B1DCDAF =
// 16294208416658607535, which ends in 5, so 5; 0x6E789E6AA1B965F4 =
// 7960286522194355700 ends in 0; 0x06C45D188009454F = 487617019471545679
// ends in 9.
TEST(Random, UniformIntIsTheDrawModuloTheSpan)
{
    wl::Random r(0);
    EXPECT_EQ(r.uniform_int(0, 9), 5);
    EXPECT_EQ(r.uniform_int(0, 9), 0);
    EXPECT_EQ(r.uniform_int(0, 9), 9);
}

// uniform_float(0, 1) is (next() >> 40) / 2^24: 0xE220A8 / 2^24 =
// 14819496 / 16777216 = 0.883304119..., and 0x6E789E / 2^24 = 7239838 /
// 16777216 = 0.431527495...; exact in float (24 bits).
TEST(Random, UniformFloatUsesTheTop24Bits)
{
    wl::Random r(0);
    EXPECT_EQ(r.uniform_float(0.0f, 1.0f), 14819496.0f / 16777216.0f);
    EXPECT_EQ(r.uniform_float(0.0f, 1.0f), 7239838.0f / 16777216.0f);
}

// Every value of a small range turns up, none outside it, and each about
// as often: 10000 draws of [-3, 3] give 7 values near 10000 / 7 = 1429 each
// (binomial sd about 35, so 1200..1650 is over six sd either side).
TEST(Random, UniformIntCoversItsRangeEvenly)
{
    wl::Random r(20261127);
    std::map<std::int64_t, int> seen;
    for (int i = 0; i < 10000; ++i) ++seen[r.uniform_int(-3, 3)];
    ASSERT_EQ(seen.size(), 7u);
    EXPECT_EQ(seen.begin()->first, -3);
    EXPECT_EQ(seen.rbegin()->first, 3);
    for (const auto& [value, count] : seen) {
        EXPECT_GT(count, 1200) << value;
        EXPECT_LT(count, 1650) << value;
    }
}

// A float draw stays in [lo, hi) even where lo + (hi - lo) * u rounds up.
TEST(Random, UniformFloatStaysBelowHi)
{
    wl::Random r(3);
    for (int i = 0; i < 100000; ++i) {
        const float x = r.uniform_float(1.0f, 1.0000001f);  // two floats apart: 1 and the next
        ASSERT_GE(x, 1.0f);
        ASSERT_LT(x, 1.0000001f);
    }
}
