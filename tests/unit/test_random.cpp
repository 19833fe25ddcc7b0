// wl::Random is specified: these values hold with any compiler and library.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <span>
#include <vector>

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

// fill_ints and fill_floats give what as many calls give, and leave the
// generator where those calls leave it: in parts on the host's cores
// (2^20 draws make several where there are cores), and where draws are drawn
// again: about half of them for a span of 2^63 + 1, and of float draws
// between 1 and the next float (those that round up to it).
template <class T, class Fill, class Draw> void expect_fill_as_calls(std::uint64_t seed, std::size_t n, Fill fill, Draw draw)
{
    wl::Random filled(seed), called(seed);
    std::vector<T> got(n);
    fill(filled, std::span<T>(got));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], static_cast<T>(draw(called))) << "element " << i << " of " << n;
    EXPECT_EQ(filled.next(), called.next()) << n;
}

TEST(Random, FillIsTheCallsInOrder)
{
    for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(1) << 20}) {
        expect_fill_as_calls<int>(7, n, [](wl::Random& r, std::span<int> out) { r.fill_ints<0, 9>(out); },
                                  [](wl::Random& r) { return r.uniform_int(0, 9); });
        expect_fill_as_calls<float>(7, n, [](wl::Random& r, std::span<float> out) { r.fill_floats(out, 0.0f, 1.0f); },
                                    [](wl::Random& r) { return r.uniform_float(0.0f, 1.0f); });
    }
}

// A span of 2^44 + 1 draws again about one draw in 2^20: among 2^22, a few,
// anywhere, so in a part after the first too.
TEST(Random, FillDrawsAgainAsTheCallsDo)
{
    constexpr std::int64_t top = std::int64_t(1) << 44;
    expect_fill_as_calls<std::int64_t>(5, std::size_t(1) << 22, [](wl::Random& r, std::span<std::int64_t> out) { r.fill_ints<0, top>(out); },
                                       [](wl::Random& r) { return r.uniform_int(0, top); });
    constexpr std::int64_t lo = INT64_MIN, hi = 0;  // 2^63 + 1 values: draws above 2^63 are drawn again
    for (const std::size_t n : {std::size_t(1000), std::size_t(1) << 20}) {
        expect_fill_as_calls<std::int64_t>(11, n, [](wl::Random& r, std::span<std::int64_t> out) { r.fill_ints<lo, hi>(out); },
                                           [](wl::Random& r) { return r.uniform_int(lo, hi); });
        expect_fill_as_calls<float>(3, n, [](wl::Random& r, std::span<float> out) { r.fill_floats(out, 1.0f, 1.0000001f); },
                                    [](wl::Random& r) { return r.uniform_float(1.0f, 1.0000001f); });
    }
}
