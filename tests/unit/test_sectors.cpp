// Global-memory sector model: a warp instruction touches the
// 32-byte sectors covering its active lanes' bytes; ideal = ceil(distinct
// bytes / 32).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "warplab/trace/analysis.h"

namespace {

using wl::trace::global_sector_cost;
using wl::trace::kDefaultWarpSize;
using wl::trace::SectorCost;
using Offsets = std::array<std::uint64_t, kDefaultWarpSize>;

constexpr std::uint32_t kFull = 0xFFFFFFFFu;

Offsets strided(std::uint64_t stride_bytes, std::uint64_t base = 0)
{
    Offsets o{};
    for (unsigned lane = 0; lane < kDefaultWarpSize; ++lane) o[lane] = base + lane * stride_bytes;
    return o;
}

TEST(Sectors, ContiguousAlignedFloatsAreFourSectors)
{
    // 32 lanes x 4 B from byte 0: bytes 0..127 = sectors 0..3 -> 4; 128 B / 32 = ideal 4.
    const SectorCost c = global_sector_cost(kFull, strided(4), 4);
    EXPECT_EQ(c.sectors, 4u);
    EXPECT_EQ(c.ideal, 4u);
}

TEST(Sectors, Stride32FloatsTouchOneSectorPerLane)
{
    // Lane l at 128l: each lane in its own sector (4l) -> 32; still 128 B requested -> ideal 4.
    const SectorCost c = global_sector_cost(kFull, strided(128), 4);
    EXPECT_EQ(c.sectors, 32u);
    EXPECT_EQ(c.ideal, 4u);
}

TEST(Sectors, Stride2FloatsTouchTwiceTheSectors)
{
    // Lane l at 8l: bytes span 0..251, sectors 0..7 -> 8; 128 B requested -> ideal 4.
    const SectorCost c = global_sector_cost(kFull, strided(8), 4);
    EXPECT_EQ(c.sectors, 8u);
    EXPECT_EQ(c.ideal, 4u);
}

TEST(Sectors, MisalignedByFourBytesIsFiveSectors)
{
    // Lane l at 4 + 4l: bytes 4..131 -> sectors 0..4 = 5; ideal 4.
    const SectorCost c = global_sector_cost(kFull, strided(4, 4), 4);
    EXPECT_EQ(c.sectors, 5u);
    EXPECT_EQ(c.ideal, 4u);
}

TEST(Sectors, BroadcastIsOneSector)
{
    // All lanes read bytes 0..3: one sector; 4 distinct bytes -> ideal 1
    // (counting each lane's bytes would make the ideal 4).
    const SectorCost c = global_sector_cost(kFull, Offsets{}, 4);
    EXPECT_EQ(c.sectors, 1u);
    EXPECT_EQ(c.ideal, 1u);
}

TEST(Sectors, WideElements)
{
    // double contiguous: 256 B -> sectors 0..7 = 8, ideal 8.
    const SectorCost d = global_sector_cost(kFull, strided(8), 8);
    EXPECT_EQ(d.sectors, 8u);
    EXPECT_EQ(d.ideal, 8u);
    // float4 contiguous: 512 B -> 16, ideal 16.
    const SectorCost f4 = global_sector_cost(kFull, strided(16), 16);
    EXPECT_EQ(f4.sectors, 16u);
    EXPECT_EQ(f4.ideal, 16u);
}

TEST(Sectors, AccessStraddlingASectorBoundary)
{
    // One lane, 8 bytes at 28: bytes 28..35 -> sectors 0 and 1 = 2; 8 B -> ideal 1.
    Offsets o{};
    o[0] = 28;
    const SectorCost c = global_sector_cost(1u, o, 8);
    EXPECT_EQ(c.sectors, 2u);
    EXPECT_EQ(c.ideal, 1u);
}

TEST(Sectors, PartialMasks)
{
    // Lanes 0-7, floats contiguous: bytes 0..31 -> 1 sector, ideal 1.
    const SectorCost eight = global_sector_cost(0xFFu, strided(4), 4);
    EXPECT_EQ(eight.sectors, 1u);
    EXPECT_EQ(eight.ideal, 1u);
    // Lanes 0-15 at stride 128: 16 sectors; 64 B -> ideal 2.
    const SectorCost sparse = global_sector_cost(0xFFFFu, strided(128), 4);
    EXPECT_EQ(sparse.sectors, 16u);
    EXPECT_EQ(sparse.ideal, 2u);
    // No lane: nothing.
    const SectorCost none = global_sector_cost(0, strided(4), 4);
    EXPECT_EQ(none.sectors, 0u);
    EXPECT_EQ(none.ideal, 0u);
}

TEST(Sectors, OverlappingAndSeparateRangesCountEachByteAndSectorOnce)
{
    // 16-byte accesses, lanes out of address order: lane 3 at 0 (bytes 0..15),
    // lane 2 at 8 (8..23), lane 1 at 40 (40..55), lane 0 at 60 (60..75).
    // Distinct bytes 24 + 16 + 16 = 56 -> ideal 2; sectors: 0..23 -> 0,
    // 40..55 -> 1, 60..75 -> 1 and 2: {0, 1, 2} = 3.
    Offsets o{};
    o[0] = 60, o[1] = 40, o[2] = 8, o[3] = 0;
    const SectorCost c = global_sector_cost(0xFu, o, 16);
    EXPECT_EQ(c.sectors, 3u);
    EXPECT_EQ(c.ideal, 2u);
}

// The model's definition, byte by byte: the distinct bytes the lanes touch,
// and the distinct sectors those bytes lie in.
SectorCost counted_byte_by_byte(std::uint32_t mask, const Offsets& o, unsigned size)
{
    std::set<std::uint64_t> bytes, sectors;
    for (unsigned lane = 0; lane < kDefaultWarpSize; ++lane)
        if (mask >> lane & 1u)
            for (unsigned b = 0; b < std::max(size, 1u); ++b) bytes.insert(o[lane] + b);
    for (std::uint64_t byte : bytes) sectors.insert(byte / 32);
    return {static_cast<std::uint32_t>(sectors.size()), static_cast<std::uint32_t>((bytes.size() + 31) / 32)};
}

TEST(Sectors, RandomAccessesAgreeWithCountingByteByByte)
{
    // Offsets within a few sectors of each other, so that ranges overlap, touch
    // and share sectors; sizes 0 (one byte) to 16; random masks.
    std::mt19937_64 rng(49);
    for (int round = 0; round < 2000; ++round) {
        Offsets o{};
        for (std::uint64_t& x : o) x = rng() % 200;
        const unsigned size = static_cast<unsigned>(rng() % 17);
        const auto mask = static_cast<std::uint32_t>(rng());
        const SectorCost got = global_sector_cost(mask, o, size), want = counted_byte_by_byte(mask, o, size);
        ASSERT_EQ(got.sectors, want.sectors) << "round " << round;
        ASSERT_EQ(got.ideal, want.ideal) << "round " << round;
    }
}

}  // namespace
