// The viewer's bank playground page shows the core's analysis, not its own:
// playground_view's picture must equal the core model's answer for the same
// offsets, on hand-derived patterns and on random ones. A viewer that counted
// banks itself (lanes instead of distinct words, no half- or quarter-warp
// phases) would differ from the core on these.
#include <gtest/gtest.h>

#include <random>

#include "viewer/model/step_model.h"

namespace {

using warplab::viewer::playground_view;
using warplab::viewer::PlaygroundView;
using wl::trace::BankPattern;
using wl::trace::kDefaultWarpSize;

constexpr std::uint32_t kFull = 0xFFFFFFFFu;

// The offsets the pattern stands for, computed here from its definition.
std::array<std::uint64_t, kDefaultWarpSize> offsets_of(const BankPattern& p)
{
    std::array<std::uint64_t, kDefaultWarpSize> o{};
    for (unsigned lane = 0; lane < kDefaultWarpSize; ++lane) o[lane] = (p.offset + p.stride * lane) * p.size;
    return o;
}

TEST(BankPlaygroundView, StrideTwoPicture)
{
    // 4-byte words at stride 2: word 2l. Even bank 2k holds words 2k (lane k) and 2k + 32
    // (lane k + 16): ways 2, 2 wavefronts, ideal 1. Rows touched: words 0..31 and 32..63 -> rows 0, 1.
    const PlaygroundView v = playground_view({4, 2, 0, kFull});
    EXPECT_EQ(v.banks.cost.wavefronts, 2u);
    EXPECT_EQ(v.banks.cost.ideal, 1u);
    EXPECT_EQ(v.banks.ways[4], 2u);
    EXPECT_EQ(v.banks.ways[5], 0u);
    EXPECT_EQ(v.banks.rows, (std::vector<std::uint64_t>{0, 1}));
    EXPECT_EQ(v.banks.lanes_by_word.at(34), std::vector<unsigned>{17});
}

TEST(BankPlaygroundView, BroadcastIsOneWordForAllLanes)
{
    // Stride 0: all 32 lanes on word 0 -> one word, bank 0 ways 1, one row; 1 wavefront.
    const PlaygroundView v = playground_view({4, 0, 0, kFull});
    EXPECT_EQ(v.banks.cost.wavefronts, 1u);
    EXPECT_EQ(v.banks.ways[0], 1u);
    EXPECT_EQ(v.banks.lanes_by_word.at(0).size(), 32u);
}

TEST(BankPlaygroundView, Float4ColumnIsEightWayPerQuarter)
{
    // float4 at stride 8 (a 128-byte row per lane): lane l covers words 32l..32l+3, banks 0..3.
    // No two lanes agree, so a quarter-warp a phase: each puts 8 distinct words in each of
    // banks 0..3 -> ways 8, wavefronts 4 x 8 = 32, ideal 4 (8-way). A whole-warp count
    // would say 32 ways per bank.
    const PlaygroundView v = playground_view({16, 8, 0, kFull});
    EXPECT_EQ(v.banks.ways[0], 8u);
    EXPECT_EQ(v.banks.ways[4], 0u);
    EXPECT_EQ(v.banks.cost.wavefronts, 32u);
    EXPECT_EQ(v.banks.cost.ideal, 4u);
}

TEST(BankPlaygroundView, SameAsTheCoreOnRandomPatterns)
{
    std::mt19937 rng(1123);
    const unsigned sizes[] = {1, 2, 4, 8, 16};
    for (int round = 0; round < 200; ++round) {
        const BankPattern p{sizes[rng() % 5], rng() % 65, rng() % 65, std::uint32_t(rng()) | 1u};
        SCOPED_TRACE(testing::Message() << "size " << p.size << " stride " << p.stride << " offset " << p.offset);
        const PlaygroundView v = playground_view(p);
        const auto detail = wl::trace::shared_bank_detail(p.mask, offsets_of(p), p.size);
        EXPECT_EQ(v.banks.cost.wavefronts, detail.cost.wavefronts);
        EXPECT_EQ(v.banks.cost.ideal, detail.cost.ideal);
        EXPECT_EQ(v.banks.ways, detail.ways);
        EXPECT_EQ(v.banks.lanes_by_word, detail.lanes_by_word);
        // ... and the numbers the page prints are the lab metrics' numbers.
        EXPECT_EQ(v.play.load.wavefronts, detail.cost.wavefronts);
    }
}

}  // namespace
