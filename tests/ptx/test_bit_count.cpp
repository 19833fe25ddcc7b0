// bit_count (core/src/emu/bit_count.h), the lane count of the interpreter's
// warp passes and the runtime's collectives: the host's POPCNT where it has
// one, std::popcount elsewhere, the same counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "../emu/bit_count.h"  // from core/src/ptx, this target's include directory

namespace {

using wl::emu::detail::bit_count;

TEST(BitCount, CountsByHand)
{
    EXPECT_EQ(bit_count(0), 0u);
    EXPECT_EQ(bit_count(1), 1u);
    EXPECT_EQ(bit_count(0xFFFF'FFFFu), 32u);             // a whole warp of 32
    EXPECT_EQ(bit_count(~std::uint64_t{0}), 64u);         // a whole warp of 64
    EXPECT_EQ(bit_count(std::uint64_t{1} << 63), 1u);     // the top lane alone (a 32-bit count would give 0)
    EXPECT_EQ(bit_count(0x8000'0001'0000'0001u), 3u);     // lanes 0, 32 and 63
    EXPECT_EQ(bit_count(0x5555'5555u), 16u);              // the even lanes of 32
    EXPECT_EQ(bit_count(0x0000'00F0'0000'0F00u), 8u);     // 4 + 4
}

// Seeded masks against a count one bit at a time.
TEST(BitCount, MatchesCountingBitByBit)
{
    std::mt19937_64 random(49);
    for (int i = 0; i < 1000; ++i) {
        std::uint64_t mask = random();
        if (i % 3 == 1) mask &= random();  // sparser masks, as divergent branches leave
        if (i % 3 == 2) mask >>= i % 64;
        unsigned by_bit = 0;
        for (std::uint64_t m = mask; m; m >>= 1) by_bit += static_cast<unsigned>(m & 1);
        ASSERT_EQ(bit_count(mask), by_bit) << std::hex << mask;
    }
}

}  // namespace
