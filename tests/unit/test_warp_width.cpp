// The analysis at a warp width of 64 (AMD's wavefront), on traces built by
// hand from lane records: grouping, divergence, the bank model per 32-lane
// half, sectors, and the JSON round trip. Each expected value is derived in
// its comment; each test also says what a 32-wide reading, or a wrong rule,
// would give instead, so that the width is seen to matter.
#include <gtest/gtest.h>

#include <array>
#include <map>

#include "warplab/trace/analysis.h"
#include "warplab/trace/json.h"

namespace {

using namespace wl::trace;

constexpr std::uint32_t kLineA = 5, kLineB = 6;

// One block's records in program order: each call is one access by `thread`
// in step (0, 0), its seq counting that thread's records.
struct Records {
    std::map<std::uint32_t, std::uint32_t> next_seq;
    std::vector<LaneRecord> list;

    void access(std::uint32_t thread, std::uint32_t line, Kind kind, Space space, std::uint64_t offset, std::uint8_t size = 4)
    {
        // value: anything lane-specific, for the round trip
        list.push_back({.thread = thread, .seq = next_seq[thread]++, .line = line, .file_hash = file_hash("wavefront.cu"),
                        .kind = kind, .space = space, .size = size, .offset = offset, .value = {thread * 3 + offset, 0}});
    }
};

// The offsets of a full 64-lane warp: lane l at bytes_per_lane * l + base.
std::array<std::uint64_t, kMaxWarpSize> strided(std::uint64_t bytes_per_lane, std::uint64_t base = 0)
{
    std::array<std::uint64_t, kMaxWarpSize> o{};
    for (unsigned lane = 0; lane < kMaxWarpSize; ++lane) o[lane] = base + bytes_per_lane * lane;
    return o;
}

constexpr LaneMask kAll64 = ~LaneMask(0);

}  // namespace

// 100 threads, each loading in[t]. At width 64: warp 0 = threads 0..63 (all
// 64 lanes), warp 1 = threads 64..99, lanes 0..35: existing = 2^36 - 1. At 32
// the same records are 4 warps, the last of 4 lanes (threads 96..99).
TEST(WarpWidth, GroupingInWarpsOf64)
{
    Records r;
    for (std::uint32_t t = 0; t < 100; ++t) r.access(t, kLineA, Kind::Load, Space::Global, 4 * t);
    const BlockTrace b = group_block(0, 100, r.list, 64);
    EXPECT_EQ(b.warp_size, 64u);
    EXPECT_EQ(warps_of(b), 2u);
    ASSERT_EQ(b.events.size(), 2u);
    EXPECT_EQ(b.events[0].mask, kAll64);
    EXPECT_EQ(b.events[0].existing, kAll64);
    EXPECT_EQ(b.events[0].offset[63], 4u * 63);  // thread 63 is lane 63 of warp 0
    EXPECT_EQ(b.events[1].warp, 1u);
    EXPECT_EQ(b.events[1].mask, (LaneMask(1) << 36) - 1);
    EXPECT_EQ(b.events[1].existing, (LaneMask(1) << 36) - 1);
    EXPECT_EQ(b.events[1].offset[0], 4u * 64);  // thread 64 is lane 0 of warp 1
    EXPECT_FALSE(partially_active(b.events[1]));  // all the lanes it has

    const BlockTrace narrow = group_block(0, 100, r.list);
    EXPECT_EQ(narrow.warp_size, 32u);
    ASSERT_EQ(narrow.events.size(), 4u);
    EXPECT_EQ(narrow.events[3].existing, 0xFu);

    EXPECT_THROW(group_block(0, 100, r.list, 48), std::invalid_argument);
}

// 64 lanes read shared word l (stride 1). Half 0: words 0..31 in banks 0..31,
// one each: 1 wavefront. Half 1: words 32..63 in banks 0..31, one each: 1.
// Wavefronts 2, ideal 2 (one per half with an active lane): 1-way. Checking all
// 64 lanes together against 32 banks would find bank b asked for words b and
// b + 32: 2 wavefronts against an ideal of 1, a 2-way conflict that GCN's
// per-half check does not have; ignoring lanes 32..63 would give 1 wavefront.
TEST(WarpWidth, BanksStrideOneIsConflictFree)
{
    const auto o = strided(4);
    const BankCost c = shared_bank_cost(kAll64, o, 4);
    EXPECT_EQ(c.wavefronts, 2u);
    EXPECT_EQ(c.ideal, 2u);
    EXPECT_DOUBLE_EQ(c.ways(), 1.0);
    // The upper half alone: one half, one wavefront.
    const BankCost upper = shared_bank_cost(kAll64 << 32, o, 4);
    EXPECT_EQ(upper.wavefronts, 1u);
    EXPECT_EQ(upper.ideal, 1u);
}

// Stride 2: lane l reads word 2l. Half 0: words 0, 2, ..., 62; bank b (even)
// holds words b and b + 32: 2 distinct words, 2 wavefronts. Half 1: words 64,
// ..., 126; bank b holds b + 64 and b + 96: 2. Wavefronts 4, ideal 2: 2-way.
TEST(WarpWidth, BanksStrideTwoIsTwoWay)
{
    const BankCost c = shared_bank_cost(kAll64, strided(8), 4);
    EXPECT_EQ(c.wavefronts, 4u);
    EXPECT_EQ(c.ideal, 2u);
    EXPECT_DOUBLE_EQ(c.ways(), 2.0);
    // The picture agrees: every even bank delivers 2 words to its worst phase, odd banks none.
    const BankDetail d = shared_bank_detail(kAll64, strided(8), 4);
    EXPECT_EQ(d.ways[0], 2u);
    EXPECT_EQ(d.ways[30], 2u);
    EXPECT_EQ(d.ways[1], 0u);
    EXPECT_EQ(d.lanes_by_word.at(126), (std::vector<unsigned>{63}));
}

// 8-byte elements at stride 1: each half is 32 lanes x 8 bytes = 256 bytes,
// served 16 lanes (128 bytes, every bank once) a phase: 2 wavefronts a half,
// 4 in all, ideal 4: 1-way.
TEST(WarpWidth, BanksEightByteHalvesInPhases)
{
    const BankCost c = shared_bank_cost(kAll64, strided(8), 8);
    EXPECT_EQ(c.wavefronts, 4u);
    EXPECT_EQ(c.ideal, 4u);
}

// 64 lanes load consecutive floats: 256 bytes from byte 0 = sectors 0..7: 8,
// ideal 256 / 32 = 8, one request. From byte 4: bytes 4..259 touch sectors
// 0..8: 9, ideal still 8. (A 32-lane reading would stop at lane 31: 4 sectors.)
TEST(WarpWidth, SectorsOfACoalescedFloatLoad)
{
    const SectorCost aligned = global_sector_cost(kAll64, strided(4), 4);
    EXPECT_EQ(aligned.sectors, 8u);
    EXPECT_EQ(aligned.ideal, 8u);
    const SectorCost shifted = global_sector_cost(kAll64, strided(4, 4), 4);
    EXPECT_EQ(shifted.sectors, 9u);
    EXPECT_EQ(shifted.ideal, 8u);

    Records r;
    for (std::uint32_t t = 0; t < 64; ++t) r.access(t, kLineA, Kind::Load, Space::Global, 4 * t);
    const std::vector<StepMetrics> m = analyze_steps(group_block(0, 64, r.list, 64));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].global_load.requests, 1u);
    EXPECT_EQ(m[0].global_load.sectors, 8u);
    EXPECT_EQ(m[0].global_load.ideal, 8u);
}

// One block of 64 threads: all load in[t] at line A; lanes 40..63 take a
// branch and store out[t] at line B. At width 64 that is one warp, and the
// store's mask is lanes 40..63 = 0xFFFFFF << 40 of 64 existing: the warp is
// partially active (1 partial warp), 64 threads active. At width 32 the
// branch covers lanes 8..31 of warp 1: warp 1 partial, warp 0 not, also 1.
// Where lanes 32..63 branch instead, 32-wide warps do not diverge at all
// (warp 1 branches whole), while the 64-wide warp does.
TEST(WarpWidth, DivergenceOfA64LaneWarp)
{
    const auto branch_from = [](std::uint32_t first) {
        Records r;
        for (std::uint32_t t = 0; t < 64; ++t) r.access(t, kLineA, Kind::Load, Space::Global, 4 * t);
        for (std::uint32_t t = first; t < 64; ++t) r.access(t, kLineB, Kind::Store, Space::Global, 4 * t);
        return r.list;
    };
    const BlockTrace wide = group_block(0, 64, branch_from(40), 64);
    ASSERT_EQ(wide.events.size(), 2u);
    const WarpEvent& store = wide.events[1];
    EXPECT_EQ(store.site.line, kLineB);
    EXPECT_EQ(store.mask, LaneMask(0xFFFFFF) << 40);
    EXPECT_EQ(store.existing, kAll64);
    EXPECT_TRUE(partially_active(store));
    const StepMetrics m = analyze_steps(wide).at(0);
    EXPECT_EQ(m.active_threads, 64u);
    EXPECT_EQ(m.active_warps, 1u);
    EXPECT_EQ(m.partial_warps, 1u);
    EXPECT_EQ(analyze_steps(group_block(0, 64, branch_from(40))).at(0).partial_warps, 1u);

    EXPECT_EQ(analyze_steps(group_block(0, 64, branch_from(32), 64)).at(0).partial_warps, 1u);
    EXPECT_EQ(analyze_steps(group_block(0, 64, branch_from(32))).at(0).partial_warps, 0u);
}

// Through text and back at width 64: the width, lanes up to 63 and 64-bit
// masks survive; a file without "warp_size" (written before it existed)
// reads as 32; lanes or masks beyond the file's width are refused.
TEST(WarpWidth, JsonRoundTrip)
{
    Records r;
    for (std::uint32_t t = 0; t < 100; ++t) r.access(t, kLineA, Kind::Load, Space::Shared, 8 * t);
    for (std::uint32_t t = 40; t < 64; ++t) r.access(t, kLineB, Kind::Store, Space::Shared, 4 * t);
    const BlockTrace b = group_block(0, 100, r.list, 64);
    const auto steps = analyze_steps(b);
    const nlohmann::json j = nlohmann::json::parse(block_to_json(b, steps, shared_contents(b)).dump());
    EXPECT_EQ(j.at("warp_size"), 64);
    // Event 0: warp 0's load, all 64 lanes; lane 63 reads byte 8 * 63 = 504, value 3 * 63 + 504 = 693.
    EXPECT_EQ(j.at("events").at(0).at("mask"), kAll64);
    EXPECT_EQ(j.at("events").at(0).at("lanes").at(63), nlohmann::json({63, 504, 693, 0}));
    // Shared loads of word 2t: warp 0, 4 wavefronts, ideal 2 (BanksStrideTwoIsTwoWay). Warp 1 (threads
    // 64..99, lanes 0..35): half 0 reads words 128..190, two a bank: 2; half 1 (lanes 32..35) words
    // 192..198 in banks 0, 2, 4, 6: 1. In all 2 requests, 7 wavefronts, ideal 4.
    const nlohmann::json& loads = j.at("steps").at(0).at("shared_load");
    EXPECT_EQ(loads.at("requests"), 2);
    EXPECT_EQ(loads.at("wavefronts"), 7);
    EXPECT_EQ(loads.at("ideal"), 4);

    const BlockTrace back = block_from_json(j);
    EXPECT_EQ(back.warp_size, 64u);
    EXPECT_EQ(back.threads, 100u);
    EXPECT_TRUE(back.events == b.events);
    EXPECT_EQ(analyze_steps(back).at(0).partial_warps, steps[0].partial_warps);

    nlohmann::json old = block_to_json(group_block(0, 100, r.list), {}, {});
    old.erase("warp_size");
    EXPECT_EQ(block_from_json(old).warp_size, 32u);

    nlohmann::json too_wide = j;  // a 64-lane event in a file that says 32
    too_wide["warp_size"] = 32;
    EXPECT_THROW(block_from_json(too_wide), std::invalid_argument);
    too_wide["warp_size"] = 48;
    EXPECT_THROW(block_from_json(too_wide), std::invalid_argument);
}

// The kinds' one list: names round-trip, and the properties the analysis
// counts by are the table's (a store writes, a shuffle is work but not memory,
// a barrier is neither).
TEST(TraceKinds, OneList)
{
    for (const KindInfo& k : kKinds) EXPECT_EQ(find_kind(k.name), k.kind) << k.name;
    for (const SpaceInfo& s : kSpaces) EXPECT_EQ(find_space(s.name), s.space) << s.name;
    EXPECT_EQ(std::size(kKinds), 9u);  // load .. declare, and mix (the instruction mix's counts)
    EXPECT_STREQ(kind_name(Kind::Atomic), "atomic");
    EXPECT_TRUE(writes_memory(Kind::Atomic));
    EXPECT_FALSE(writes_memory(Kind::Load));
    EXPECT_TRUE(is_work(Kind::Shuffle));
    EXPECT_FALSE(is_memory(Kind::Shuffle));
    EXPECT_FALSE(is_work(Kind::SyncThreads));
    EXPECT_TRUE(is_collective(Kind::SyncWarp));
    EXPECT_FALSE(find_kind("jump"));
    EXPECT_STREQ(kind_name(static_cast<Kind>(200)), "unknown");
}
