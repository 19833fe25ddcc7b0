// The constant cache's serialisation (analysis.h): one request per distinct
// address a warp instruction reads, counted per step and over the block.
#include <gtest/gtest.h>

#include <array>

#include "warplab/trace/analysis.h"

namespace {

using namespace wl::trace;

std::array<std::uint64_t, 32> offsets_of(unsigned (*index)(unsigned))
{
    std::array<std::uint64_t, 32> o{};
    for (unsigned l = 0; l < 32; ++l) o[l] = 4 * index(l);
    return o;
}

TEST(ConstantCache, OneRequestPerDistinctAddress)
{
    const LaneMask all = first_lanes_mask(32);
    // table[blockIdx.x]: every lane the same word -> 1.
    EXPECT_EQ(constant_addresses(all, offsets_of([](unsigned) { return 7u; })), 1u);
    // table[lane / 8]: words 0..3 -> 4.
    EXPECT_EQ(constant_addresses(all, offsets_of([](unsigned l) { return l / 8; })), 4u);
    // table[lane]: 32 words -> 32.
    EXPECT_EQ(constant_addresses(all, offsets_of([](unsigned l) { return l; })), 32u);
    // table[lane], half the warp active (lanes 0-15) -> 16.
    EXPECT_EQ(constant_addresses(first_lanes_mask(16), offsets_of([](unsigned l) { return l; })), 16u);
    EXPECT_EQ(constant_addresses(0, offsets_of([](unsigned l) { return l; })), 0u);
}

WarpEvent constant_load(std::uint32_t warp, unsigned (*index)(unsigned))
{
    WarpEvent e;
    e.warp = warp;
    e.kind = Kind::Load;
    e.space = Space::Constant;
    e.size = 4;
    e.mask = e.existing = first_lanes_mask(32);
    const auto o = offsets_of(index);
    std::copy(o.begin(), o.end(), e.offset.begin());
    return e;
}

// One step, two warps: a uniform lookup (1 each) and a lane / 8 lookup (4 each):
// 4 requests, 1 + 1 + 4 + 4 = 10 addresses, worst 4-way; no global or shared counts.
TEST(ConstantCache, StepsCountRequestsAddressesAndTheWorst)
{
    BlockTrace b;
    b.threads = 64;
    b.steps = {{0, 0}};
    for (std::uint32_t w : {0u, 1u}) {
        b.events.push_back(constant_load(w, [](unsigned) { return 3u; }));
        b.events.push_back(constant_load(w, [](unsigned l) { return l / 8; }));
    }
    const std::vector<StepMetrics> steps = analyze_steps(b);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].constant_load.requests, 4u);
    EXPECT_EQ(steps[0].constant_load.addresses, 10u);
    EXPECT_EQ(steps[0].constant_load.worst, 4u);
    EXPECT_EQ(steps[0].global_load.requests, 0u);
    EXPECT_EQ(steps[0].active_threads, 64u);
    const Totals t = totals(steps);
    EXPECT_EQ(t.constant_load.addresses, 10u);
    EXPECT_EQ(t.constant_load.worst, 4u);
}

}  // namespace
