// The bench table's ratios (labs/common/bench_ratios.cpp): each row's step
// speed-up is against the row before it, passing over variants, or against
// the version its entry builds on; the cumulative one against the first row;
// "vs ref" against the reference row. Each expected ratio is worked out by
// hand from the times beside it.
#include <gtest/gtest.h>

#include "labs/common/bench.h"

namespace {

using warplab::BenchRow;
using warplab::BenchTable;

BenchRow row(const char* version, double ms, const char* step_from = "", bool variant = false, bool reference = false)
{
    BenchRow r;
    r.version = version;
    r.median_ms = ms;
    r.step_from = step_from;
    r.variant = variant;
    r.reference = reference;
    return r;
}

TEST(BenchRatios, AStepIsAgainstTheRowBeforeOrTheVersionItBuildsOn)
{
    BenchTable t;
    t.rows = {row("v1", 8.0), row("v2", 4.0), row("v2-racy", 3.0, "", true), row("v3", 2.0), row("v4", 1.0, "v2"),
              row("ref", 2.0, "", false, true)};
    warplab::derive_ratios(t);
    // v2: 8 / 4 = 2; the variant: against v2, 4 / 3; v3: against v2, not the
    // variant, 4 / 2 = 2; v4 builds on v2: 4 / 1 = 4 (against v3 it would be 2).
    EXPECT_DOUBLE_EQ(t.rows[1].step_speedup, 2.0);
    EXPECT_DOUBLE_EQ(t.rows[2].step_speedup, 4.0 / 3.0);
    EXPECT_DOUBLE_EQ(t.rows[3].step_speedup, 2.0);
    EXPECT_DOUBLE_EQ(t.rows[4].step_speedup, 4.0);
    // Cumulative: v1's 8 ms over each; v4: 8. vs ref: 2 ms over each; v4: 2.
    EXPECT_DOUBLE_EQ(t.rows[4].cumulative, 8.0);
    EXPECT_DOUBLE_EQ(t.rows[4].vs_reference, 2.0);
    EXPECT_DOUBLE_EQ(t.rows[0].step_speedup, 0.0) << "the first row has no step";
}

}  // namespace
