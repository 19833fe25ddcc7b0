// The bank-conflict playground: a pattern (element size, stride, offset,
// active lanes) through the labs' own grouping and bank model. Every expected
// value is derived by hand below: word w = byte / 4 is in bank w % 32; a phase
// (32 lanes up to 4 bytes, 16 lanes of 8, 8 lanes of 16) costs the most
// distinct words one bank delivers; ideal = phases with an active lane.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "warplab/trace/bank_playground.h"

namespace {

using wl::trace::bank_playground;
using wl::trace::BankPattern;
using wl::trace::BankPlayground;
using wl::trace::first_lanes;
using wl::trace::kDefaultWarpSize;

constexpr std::uint32_t kFull = 0xFFFFFFFFu;

BankPlayground play(unsigned size, std::uint64_t stride, std::uint64_t offset = 0, std::uint32_t mask = kFull)
{
    return bank_playground(BankPattern{size, stride, offset, mask});
}

// wavefronts, ideal, and the worst n-way as the lab metrics report it.
void expect_cost(const BankPlayground& p, std::uint32_t wavefronts, std::uint32_t ideal)
{
    EXPECT_EQ(p.load.requests, 1u);
    EXPECT_EQ(p.load.wavefronts, wavefronts);
    EXPECT_EQ(p.load.ideal, ideal);
    EXPECT_DOUBLE_EQ(p.load.worst_ways, double(wavefronts) / ideal);
    // The picture is of the same event and says the same.
    EXPECT_EQ(p.detail.cost.wavefronts, wavefronts);
    EXPECT_EQ(p.detail.cost.ideal, ideal);
}

TEST(BankPlayground, FourByteStridesOneToFour)
{
    // Stride 1: lane l reads word l, bank l: one word per bank -> 1 wavefront, 1-way.
    expect_cost(play(4, 1), 1, 1);
    // Stride 2: word 2l; lanes l and l+16 both in bank 2l mod 32, words 2l and 2l+32 -> 2.
    expect_cost(play(4, 2), 2, 1);
    // Stride 3: 3l mod 32 is a permutation of the banks (gcd(3, 32) = 1) -> 1.
    expect_cost(play(4, 3), 1, 1);
    // Stride 4: word 4l, banks 0, 4, ..., 28 (8 banks), 32 lanes / 8 banks = 4 words each -> 4.
    expect_cost(play(4, 4), 4, 1);
}

TEST(BankPlayground, LanesCarryAddressWordAndBank)
{
    // Stride 3, 4 bytes, offset 5: lane l at element 5 + 3l, byte 4(5 + 3l), word 5 + 3l.
    // Lane 9: element 32, byte 128, word 32, bank 0. Lane 31: element 98, byte 392, word 98, bank 2.
    const BankPlayground p = play(4, 3, 5);
    EXPECT_EQ(p.lanes[9].address, 128u);
    EXPECT_EQ(p.lanes[9].first_word, 32u);
    EXPECT_EQ(p.lanes[9].bank(), 0u);
    EXPECT_EQ(p.lanes[31].address, 392u);
    EXPECT_EQ(p.lanes[31].bank(), 2u);
    EXPECT_EQ(p.lanes[31].last_word, 98u);  // a 4-byte element is one word
}

TEST(BankPlayground, EightByteStrideOneAndTwo)
{
    // double, stride 1: half-warp 0 covers bytes 0..127 = words 0..31, one per bank -> 1;
    // half-warp 1 words 32..63 -> 1. 2 wavefronts, ideal 2 (two phases), 1-way.
    const BankPlayground one = play(8, 1);
    expect_cost(one, 2, 2);
    EXPECT_EQ(one.phase_lanes, 16u);
    // Lane 3: byte 24, words 6 and 7, banks 6..7.
    EXPECT_EQ(one.lanes[3].bank(), 6u);
    EXPECT_EQ(one.lanes[3].last_bank(), 7u);
    // double, stride 2: lane l at byte 16l, words 4l and 4l+1. In half-warp 0, lanes l and
    // l+8 meet in banks 4l, 4l+1 (words 4l and 4l+32) -> 2; half-warp 1 alike -> 4, ideal 2, 2-way.
    expect_cost(play(8, 2), 4, 2);
}

TEST(BankPlayground, SixteenByteStrideOne)
{
    // float4, stride 1: each quarter-warp (8 lanes x 16 B = 128 B) covers 32 consecutive
    // words, one per bank -> 1; four quarters -> 4 wavefronts, ideal 4, 1-way.
    const BankPlayground p = play(16, 1);
    expect_cost(p, 4, 4);
    EXPECT_EQ(p.phase_lanes, 8u);
    EXPECT_EQ(p.lanes[1].bank(), 4u);       // byte 16 = word 4
    EXPECT_EQ(p.lanes[1].last_bank(), 7u);  // .. word 7
    // float4, stride 0 (the float4-broadcast preset): lanes agree in pairs, so a half-warp
    // a phase (Nsight Compute on an H100: results/fidelity), each asking banks 0..3 for
    // words 0..3 once -> 1 + 1 = 2, ideal 2. Per quarter-warp it would be 4.
    const BankPlayground broadcast = play(16, 0);
    expect_cost(broadcast, 2, 2);
    EXPECT_EQ(broadcast.phase_lanes, 16u);
}

TEST(BankPlayground, OffsetsShiftTheBanks)
{
    // Stride 2 with offset 1: word 2l + 1, the odd banks, still lanes l and l+16 in one bank -> 2.
    expect_cost(play(4, 2, 1), 2, 1);
    EXPECT_EQ(play(4, 2, 1).lanes[0].bank(), 1u);
    // double stride 1 with offset 1: lane l covers words 2l+2, 2l+3. Half-warp 0: words 2..33,
    // bank 0 holds word 32 and bank 1 word 33, each once (words 0, 1 are not read) -> 1;
    // half-warp 1: words 34..65 -> 1. An unaligned start does not conflict here: 2, ideal 2.
    expect_cost(play(8, 1, 1), 2, 2);
    // float4 stride 2 with offset 1: lane l at element 2l + 1, words 8l+4 .. 8l+7. Quarter 0:
    // lanes 0..7 words 4..7, 12..15, ..., 60..63: banks 4-7, 12-15, 20-23, 28-31 twice each
    // (lane l and l+4, words 32 apart) -> 2 per quarter -> 8, ideal 4, 2-way.
    expect_cost(play(16, 2, 1), 8, 4);
}

TEST(BankPlayground, HalfTheLanesActive)
{
    // Stride 2, lanes 0..15 only: words 0, 2, ..., 30 in 16 distinct banks -> 1 (the lanes
    // l + 16 that would share them are idle).
    expect_cost(play(4, 2, 0, first_lanes(16)), 1, 1);
    // Stride 4, lanes 0..15: word 4l, banks 0, 4, ..., 28, lanes l and l+8 share one -> 2.
    expect_cost(play(4, 4, 0, first_lanes(16)), 2, 1);
    // double stride 1, lanes 0..15: only half-warp 0 -> 1 wavefront, ideal 1.
    expect_cost(play(8, 1, 0, first_lanes(16)), 1, 1);
    // Every other lane (0x55555555), stride 1 float4: each quarter has 4 active lanes
    // (l = 0, 2, 4, 6 at words 0-3, 8-11, ...) -> 1 each -> 4, ideal 4.
    expect_cost(play(16, 1, 0, 0x55555555u), 4, 4);
    // Inactive lanes are marked, and their addresses are not counted.
    const BankPlayground p = play(4, 32, 0, first_lanes(16));
    EXPECT_TRUE(p.lanes[15].active);
    EXPECT_FALSE(p.lanes[16].active);
    expect_cost(p, 16, 1);  // 16 lanes, all bank 0, 16 distinct words
}

TEST(BankPlayground, SmallElementsShareWords)
{
    // char stride 1: lanes 4k..4k+3 read word k -> 8 words in 8 banks -> 1.
    expect_cost(play(1, 1), 1, 1);
    // short stride 2: lane l at byte 4l, word l -> 1. short stride 64: byte 128l, word 32l,
    // bank 0 for all -> 32.
    expect_cost(play(2, 2), 1, 1);
    expect_cost(play(2, 64), 32, 1);
}

TEST(BankPlayground, Presets)
{
    // The presets' answers, derived in their descriptions (n-way = wavefronts / ideal).
    const std::vector<std::pair<const char*, double>> expected = {
        {"stride1", 1}, {"stride2", 2}, {"stride3", 1},       {"stride4", 4}, {"tile32-column", 32},
        {"tile33-column", 1}, {"double", 1}, {"float4", 1}, {"float4-broadcast", 1}, {"broadcast", 1}};
    ASSERT_EQ(wl::trace::bank_presets().size(), expected.size());
    for (const auto& [name, ways] : expected) {
        SCOPED_TRACE(name);
        const wl::trace::BankPreset* preset = wl::trace::find_bank_preset(name);
        ASSERT_NE(preset, nullptr);
        EXPECT_DOUBLE_EQ(bank_playground(preset->pattern).load.worst_ways, ways);
    }
    EXPECT_EQ(wl::trace::find_bank_preset("stride5"), nullptr);
}

TEST(BankPlayground, AgreesWithTheModelOnRandomPatterns)
{
    // The playground adds nothing to the model: for any pattern its counts are
    // shared_bank_cost of the offsets (offset + stride * lane) * size.
    std::mt19937 rng(20261123);
    const unsigned sizes[] = {1, 2, 4, 8, 16};
    for (int round = 0; round < 200; ++round) {
        const BankPattern p{sizes[rng() % 5], rng() % 70, rng() % 40, std::uint32_t(rng()) | 1u};
        std::array<std::uint64_t, kDefaultWarpSize> offset{};
        for (unsigned lane = 0; lane < kDefaultWarpSize; ++lane) offset[lane] = (p.offset + p.stride * lane) * p.size;
        const auto c = wl::trace::shared_bank_cost(p.mask, offset, p.size);
        const BankPlayground got = bank_playground(p);
        EXPECT_EQ(got.load.wavefronts, c.wavefronts);
        EXPECT_EQ(got.load.ideal, c.ideal);
    }
}

TEST(BankPlayground, BadPatternsAreNamed)
{
    EXPECT_NE(wl::trace::pattern_problem({3, 1, 0, kFull}).value_or("").find("size 3"), std::string::npos);
    EXPECT_NE(wl::trace::pattern_problem({4, 5000, 0, kFull}).value_or("").find("stride 5000"), std::string::npos);
    EXPECT_NE(wl::trace::pattern_problem({4, 1, 5000, kFull}).value_or("").find("offset 5000"), std::string::npos);
    EXPECT_NE(wl::trace::pattern_problem({4, 1, 0, 0}).value_or("").find("no active lane"), std::string::npos);
    EXPECT_FALSE(wl::trace::pattern_problem({16, 1024, 1024, 1}).has_value());
    EXPECT_THROW(play(32, 1), std::invalid_argument);
}

TEST(BankPlayground, FirstLanes)
{
    EXPECT_EQ(first_lanes(0), 0u);
    EXPECT_EQ(first_lanes(1), 1u);
    EXPECT_EQ(first_lanes(16), 0xFFFFu);
    EXPECT_EQ(first_lanes(32), kFull);
}

}  // namespace
