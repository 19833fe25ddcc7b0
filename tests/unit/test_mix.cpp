// The instruction mix in a grouped trace (mix.h): Kind::Mix records become
// counts by step and warp, open no step and make no event; a record of a step
// without accesses counts in the step before it.
#include <gtest/gtest.h>

#include <algorithm>

#include "warplab/trace/events.h"
#include "warplab/trace/json.h"
#include "warplab/trace/mix.h"

namespace {

using namespace wl::trace;

LaneRecord access(std::uint32_t thread, std::uint32_t epoch, std::uint32_t seq)
{
    LaneRecord r{};
    r.thread = thread;
    r.epoch = epoch;
    r.seq = seq;
    r.line = 10;
    r.kind = Kind::Load;
    r.space = Space::Global;
    r.size = 4;
    r.offset = 4 * thread;
    return r;
}

LaneRecord mix(std::uint32_t warp_first_thread, std::uint32_t epoch, InstructionClass c, std::uint64_t count)
{
    LaneRecord r{};
    r.thread = warp_first_thread;
    r.epoch = epoch;
    r.kind = Kind::Mix;
    r.array = static_cast<std::uint8_t>(c);
    r.offset = count;
    return r;
}

// Two warps of 32 lanes, loads in epochs 0 and 1; counts in epochs 0, 1 and 2
// (epoch 2 has no access: its counts join epoch 1's step).
TEST(InstructionMix, GroupsByStepAndWarpWithoutOpeningSteps)
{
    std::vector<LaneRecord> records;
    for (std::uint32_t t = 0; t < 64; ++t) {
        records.push_back(access(t, 0, 0));
        records.push_back(access(t, 1, 1));
    }
    records.push_back(mix(0, 0, InstructionClass::Fp32, 8));
    records.push_back(mix(32, 0, InstructionClass::Fp32, 6));
    records.push_back(mix(0, 0, InstructionClass::LoadGlobal, 1));
    records.push_back(mix(32, 1, InstructionClass::Integer, 5));
    records.push_back(mix(32, 2, InstructionClass::Integer, 2));
    records.push_back(mix(0, 2, InstructionClass::Branch, 1));
    const BlockTrace b = group_block(0, 64, records);
    ASSERT_EQ(b.steps.size(), 2u);   // epochs 0 and 1: the Mix records opened none
    EXPECT_EQ(b.events.size(), 4u);  // one load event a warp a step
    const std::vector<ClassCounts> by_step = mix_by_step(b);
    ASSERT_EQ(by_step.size(), 2u);
    // Step 0: FP32 8 + 6 = 14 over both warps, one global load (warp 0's).
    EXPECT_EQ(by_step[0][static_cast<std::size_t>(InstructionClass::Fp32)], 14u);
    EXPECT_EQ(by_step[0][static_cast<std::size_t>(InstructionClass::LoadGlobal)], 1u);
    EXPECT_EQ(instructions(by_step[0]), 15u);
    // Step 1: integer 5 + 2 (epoch 2's), branch 1 (epoch 2's).
    EXPECT_EQ(by_step[1][static_cast<std::size_t>(InstructionClass::Integer)], 7u);
    EXPECT_EQ(by_step[1][static_cast<std::size_t>(InstructionClass::Branch)], 1u);
    EXPECT_EQ(instructions(mix_total(b)), 23u);
    // Per warp: warp 1's step 1 integers, as one count (epochs 1 and 2 merged).
    const auto warp1 = std::find_if(b.mix.begin(), b.mix.end(), [](const MixCount& m) {
        return m.warp == 1 && m.step == 1 && m.cls == InstructionClass::Integer;
    });
    ASSERT_NE(warp1, b.mix.end());
    EXPECT_EQ(warp1->count, 7u);
}

// A kernel that made no access (a compute-only variant) still has its counts, as step 0.
TEST(InstructionMix, ABlockWithoutAccessesKeepsItsCounts)
{
    const BlockTrace b = group_block(0, 32, {mix(0, 0, InstructionClass::Fp32, 100), mix(0, 0, InstructionClass::Branch, 3)});
    EXPECT_TRUE(b.steps.empty());
    EXPECT_TRUE(b.events.empty());
    const auto by_step = mix_by_step(b);
    ASSERT_EQ(by_step.size(), 1u);
    EXPECT_EQ(instructions(by_step[0]), 103u);
}

// The trace document carries the mix (docs/trace-format.md) and reads it back; a GPU trace has none.
TEST(InstructionMix, TraceDocumentsCarryIt)
{
    std::vector<LaneRecord> records;
    for (std::uint32_t t = 0; t < 32; ++t) records.push_back(access(t, 0, 0));
    records.push_back(mix(0, 0, InstructionClass::Special, 3));
    records.push_back(mix(0, 0, InstructionClass::LoadConstant, 2));
    const BlockTrace b = group_block(0, 32, records);
    const nlohmann::json doc = block_to_json(b, analyze_steps(b), {});
    ASSERT_TRUE(doc.contains("mix"));
    EXPECT_EQ(doc.at("mix").size(), 2u);
    EXPECT_EQ(block_from_json(doc).mix, b.mix);
    nlohmann::json wrong = doc;
    wrong["mix"][0]["class"] = "fp128";
    EXPECT_THROW(block_from_json(wrong), std::invalid_argument);
    records.pop_back(), records.pop_back();
    EXPECT_FALSE(block_to_json(group_block(0, 32, records), {}, {}).contains("mix"));
}

TEST(InstructionMix, ClassWordsAreUniqueAndFound)
{
    for (std::size_t i = 0; i < kInstructionClasses; ++i) {
        const auto c = static_cast<InstructionClass>(i);
        EXPECT_EQ(find_class(class_word(c)), c) << class_word(c);
    }
    EXPECT_FALSE(find_class("fp128").has_value());
    EXPECT_STREQ(class_word(static_cast<InstructionClass>(200)), "unknown");
}

}  // namespace
