// The bench table's ratios (labs/common/bench_ratios.cpp): each row's
// speed-up over the previous version is against the row before it, passing over variants, or against
// the version its entry builds on; the cumulative one against the first row;
// "vs ref" against the reference row. Each expected ratio is worked out by
// hand from the times beside it.
#include <gtest/gtest.h>

#include "labs/common/bench.h"
#include "labs/common/bench_json.h"

namespace {

using warplab::BenchRow;
using warplab::BenchTable;

BenchRow row(const char* version, double ms, const char* previous_version = "", bool variant = false, bool reference = false)
{
    BenchRow r;
    r.version = version;
    r.median_ms = ms;
    r.previous_version = previous_version;
    r.variant = variant;
    r.reference = reference;
    return r;
}

TEST(BenchRatios, ASpeedupIsAgainstTheRowBeforeOrTheVersionItBuildsOn)
{
    BenchTable t;
    t.rows = {row("v1", 8.0), row("v2", 4.0), row("v2-racy", 3.0, "", true), row("v3", 2.0), row("v4", 1.0, "v2"),
              row("ref", 2.0, "", false, true)};
    warplab::derive_ratios(t);
    // v2: 8 / 4 = 2; the variant: against v2, 4 / 3; v3: against v2, not the
    // variant, 4 / 2 = 2; v4 builds on v2: 4 / 1 = 4 (against v3 it would be 2).
    EXPECT_DOUBLE_EQ(t.rows[1].speedup_vs_previous, 2.0);
    EXPECT_DOUBLE_EQ(t.rows[2].speedup_vs_previous, 4.0 / 3.0);
    EXPECT_DOUBLE_EQ(t.rows[3].speedup_vs_previous, 2.0);
    EXPECT_DOUBLE_EQ(t.rows[4].speedup_vs_previous, 4.0);
    // Cumulative: v1's 8 ms over each; v4: 8. vs ref: 2 ms over each; v4: 2.
    EXPECT_DOUBLE_EQ(t.rows[4].cumulative, 8.0);
    EXPECT_DOUBLE_EQ(t.rows[4].vs_reference, 2.0);
    EXPECT_DOUBLE_EQ(t.rows[0].speedup_vs_previous, 0.0) << "the first row has no version before it";
}

// Results recorded before the rename name the two fields step_speedup and
// step_from; they still load, into the same fields: v1 8 ms, v4 1 ms built on
// v2 (4 ms), so v4's speed-up is 4 / 1 = 4, as recorded.
TEST(BenchRatios, ResultsWithTheOldFieldNamesStillLoad)
{
    BenchTable t;
    t.rows = {row("v1", 8.0), row("v2", 4.0), row("v4", 1.0, "v2")};
    warplab::derive_ratios(t);
    nlohmann::json j = warplab::to_json(t);
    for (auto& r : j.at("rows")) {
        r["step_speedup"] = r.at("speedup_vs_previous");
        r["step_from"] = r.at("previous_version");
        r.erase("speedup_vs_previous");
        r.erase("previous_version");
    }
    const BenchTable back = warplab::bench_table_from_json(j);
    ASSERT_EQ(back.rows.size(), 3u);
    EXPECT_DOUBLE_EQ(back.rows[2].speedup_vs_previous, 4.0);
    EXPECT_EQ(back.rows[2].previous_version, "v2");
    EXPECT_DOUBLE_EQ(back.rows[1].speedup_vs_previous, 2.0);
}

// A table timed at --block keeps the block it was timed at (an image group
// 16x8 here); a table without one loads with none, which `--recorded` shows
// only when no --block is asked for.
TEST(BenchRatios, TheBlockOfABlockRunIsRecorded)
{
    BenchTable t;
    t.rows = {row("v1", 8.0)};
    t.block = {16, 8};
    EXPECT_EQ(warplab::bench_table_from_json(warplab::to_json(t)).block, (std::vector<unsigned>{16, 8}));
    t.block.clear();
    const nlohmann::json j = warplab::to_json(t);
    EXPECT_FALSE(j.contains("block"));
    EXPECT_TRUE(warplab::bench_table_from_json(j).block.empty());
}

}  // namespace

// The DRAM peak every memory-bound table divides by: two transfers a memory
// clock over the bus. An H100 80GB HBM3 reports a 2619 MHz memory clock and a
// 5120-bit bus: 2 × 2619e6 × 640 bytes = 3352.32 GB/s (the peak its recorded
// tables carry); an H200's 3201 MHz and 6016 bits: 2 × 3201e6 × 752 = 4814.304 GB/s.
TEST(BenchRatios, DramPeakIsTwoTransfersAClockOverTheBus)
{
    warplab::Provenance h100;
    h100.mem_clock_mhz = 2619, h100.bus_width_bits = 5120;
    EXPECT_NEAR(warplab::dram_peak_gbps(h100), 3352.32, 1e-9);
    warplab::Provenance h200;
    h200.mem_clock_mhz = 3201, h200.bus_width_bits = 6016;
    EXPECT_NEAR(warplab::dram_peak_gbps(h200), 4814.304, 1e-9);
}

// A record's command: a machine's output folder (/scratch/out, outside the
// working directory /home/ada/warplab) must not reach results/; a path under the working
// directory keeps its place in the repository; other arguments stay as written.
TEST(BenchProvenance, AbsolutePathsLoseTheMachinesFolders)
{
    const char* outside[] = {"/usr/bin/warplab", "bench", "method", "--record", "/scratch/out/results/h100-method.json"};
    EXPECT_EQ(warplab::provenance_command(5, outside, "/home/ada/warplab"),
              "warplab bench method --record h100-method.json");
    const char* under[] = {"build/warplab", "bench", "image", "--size", "1920,1080", "--record",
                           "/home/ada/warplab/results/h100-image.json"};
    EXPECT_EQ(warplab::provenance_command(7, under, "/home/ada/warplab/"), "warplab bench image --size 1920,1080 --record results/h100-image.json");
    const char* relative[] = {"warplab", "bench", "matmul", "--record", "../results/x.json"};
    EXPECT_EQ(warplab::provenance_command(5, relative, "/home/ada/warplab"), "warplab bench matmul --record ../results/x.json");
    const char* sibling[] = {"warplab", "bench", "--file", "/home/ada/warplabs/k.cu"};  // a prefix of the name is not "under"
    EXPECT_EQ(warplab::provenance_command(4, sibling, "/home/ada/warplab"), "warplab bench --file k.cu");
}
