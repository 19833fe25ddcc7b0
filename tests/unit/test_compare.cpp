// Two traces side by side (warplab/trace/compare.h): which steps' accesses
// differ, on blocks of 64 threads (two warps) written record by record. The
// expectations are derived by hand in each comment.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "warplab/trace/compare.h"

namespace {

using namespace wl::trace;

constexpr std::uint32_t kThreads = 64;

// A tree step as reduction v2 (index = 2·s·tid) or v3 (tid + s) makes it:
// threads tid < active load sdata[a(tid)] and sdata[b(tid)], store sdata[a(tid)];
// `epoch` is the step (one __syncthreads() a step), `line` the source line.
template <class A, class B>
void tree_step(std::vector<LaneRecord>& out, std::uint32_t epoch, std::uint32_t line, unsigned active, A a, B b)
{
    for (std::uint32_t t = 0; t < active; ++t) {
        std::uint32_t seq = epoch * 3;
        for (const auto& [kind, word] : {std::pair{Kind::Load, a(t)}, std::pair{Kind::Load, b(t)}, std::pair{Kind::Store, a(t)}}) {
            LaneRecord r{};
            r.thread = t, r.seq = seq++, r.epoch = epoch, r.line = line, r.file_hash = file_hash("k.cuh");
            r.kind = kind, r.space = Space::Shared, r.size = 4, r.offset = 4ull * word;
            out.push_back(r);
        }
    }
}

// Step 0 in both: all 64 threads store sdata[tid] (line 10). Then at s = 32:
// v3-like, threads 0..31 add sdata[tid + 32]; the v3-like trace repeats that
// (epoch 1); the v2-like one at s = 1 adds sdata[2·tid + 1] into sdata[2·tid].
std::vector<LaneRecord> load_step()
{
    std::vector<LaneRecord> out;
    for (std::uint32_t t = 0; t < kThreads; ++t) {
        LaneRecord r{};
        r.thread = t, r.line = 10, r.file_hash = file_hash("k.cuh"), r.kind = Kind::Store, r.space = Space::Shared, r.size = 4;
        r.offset = 4ull * t;
        out.push_back(r);
    }
    return out;
}

BlockTrace sequential()
{
    auto records = load_step();
    tree_step(records, 1, 20, 32, [](std::uint32_t t) { return t; }, [](std::uint32_t t) { return t + 32; });
    return group_block(0, kThreads, records);
}

BlockTrace interleaved()
{
    auto records = load_step();
    tree_step(records, 1, 30, 32, [](std::uint32_t t) { return 2 * t; }, [](std::uint32_t t) { return 2 * t + 1; });
    return group_block(0, kThreads, records);
}

// The load step is the same; step 1 differs (other words), and is the first.
TEST(TraceCompare, TheFirstStepWhoseWordsDiffer)
{
    const std::vector<bool> d = differing_steps(interleaved(), sequential());
    EXPECT_EQ(d, (std::vector<bool>{false, true}));
    EXPECT_EQ(first_differing_step(d), 1u);
}

// Source lines are no access: the same words from other lines (20 and 40) do
// not differ. Nor does the order the lanes ran in (the records shuffled).
TEST(TraceCompare, LinesAndLaneOrderAreNoDifference)
{
    auto records = load_step();
    tree_step(records, 1, 40, 32, [](std::uint32_t t) { return t; }, [](std::uint32_t t) { return t + 32; });
    std::shuffle(records.begin(), records.end(), std::mt19937(7));
    const std::vector<bool> d = differing_steps(sequential(), group_block(0, kThreads, records));
    EXPECT_EQ(d, (std::vector<bool>{false, false}));
    EXPECT_FALSE(first_differing_step(d));
}

// One lane fewer (31 threads at s = 32, an odd count) is a different access
// (another mask); a step only one trace has differs too.
TEST(TraceCompare, FewerLanesAndMissingStepsDiffer)
{
    auto records = load_step();
    tree_step(records, 1, 20, 31, [](std::uint32_t t) { return t; }, [](std::uint32_t t) { return t + 32; });
    EXPECT_EQ(first_differing_step(differing_steps(sequential(), group_block(0, kThreads, records))), 1u);
    const BlockTrace only_load = group_block(0, kThreads, load_step());
    EXPECT_EQ(differing_steps(only_load, sequential()), (std::vector<bool>{false, true}));
    EXPECT_EQ(differing_steps(sequential(), only_load), (std::vector<bool>{false, true}));
}

}  // namespace
