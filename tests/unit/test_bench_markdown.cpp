// The markdown tables' lower bound ("no kernel can take less than ..."): the
// work the rates count, at the recorded peak. Each expected line is worked out
// by hand in its comment from the table's figures.
#include <gtest/gtest.h>

#include "apps/cli/bench_table.h"

namespace {

using warplab::BenchRow;
using warplab::BenchTable;

// A table with one timed row that did `work` (GB or GFLOP) in `ms`.
BenchTable table(const char* unit, std::size_t n, double peak, double work, double ms)
{
    BenchTable t;
    t.lab = "lab";
    t.type = "float";
    t.rate_unit = unit;
    t.n = n;
    t.peak = peak;
    BenchRow r;
    r.version = "v1";
    r.ok = true;
    r.median_ms = r.min_ms = ms;
    r.rate = work / (ms / 1e3);
    t.rows.push_back(r);
    return t;
}

std::string bound_line(const BenchTable& t) { return warplab::cli::bench_markdown({t}, {}); }

TEST(BenchMarkdown, TransposeBoundCountsEveryElementReadAndWritten)
{
    // 8192 × 8192 floats read once and written once: 2 · 8192² · 4 B =
    // 536,870,912 B = 0.537 GB; at 3352.32 GB/s that is 0.53687 / 3352.32 s = 1.6015e-4 s =
    // 0.1601 ms. (n is the matrix's side: n · 4 B would say 3.28e-05 GB.)
    const BenchTable t = table("GB/s", 8192, 3352.32, 0.536870912, 0.2);
    EXPECT_NE(bound_line(t).find("0.537 GB moved at the DRAM peak of 3352 GB/s: no kernel can take less than 0.1601 ms"),
              std::string::npos)
        << bound_line(t);
}

TEST(BenchMarkdown, ATinyBoundIsInMicroseconds)
{
    // 2^20 ints read: 4,194,304 B = 0.00419 GB; / 3352.32 GB/s = 1.2512e-6 s
    // = 1.25 µs (as milliseconds, 0.0013 would hide three of its digits).
    const BenchTable t = table("GB/s", std::size_t(1) << 20, 3352.32, 0.004194304, 0.0094);
    EXPECT_NE(bound_line(t).find("0.00419 GB moved at the DRAM peak of 3352 GB/s: no kernel can take less than 1.25 µs"),
              std::string::npos)
        << bound_line(t);
}

TEST(BenchMarkdown, MatmulBoundIsOfTheFp32Lanes)
{
    // 2 · 4096³ = 137,438,953,472 FLOP = 137.4 GFLOP; / 66,908.16 GFLOP/s
    // (132 SMs × 128 lanes × 2 × 1980 MHz) = 2.0541 ms.
    const BenchTable t = table("GFLOP/s", 4096, 66908.16, 137.438953472, 2.8191);
    EXPECT_NE(bound_line(t).find("137.4 GFLOP at the FP32 peak of 66908 GFLOP/s: no kernel on the FP32 lanes can take "
                                 "less than 2.054 ms"),
              std::string::npos)
        << bound_line(t);
}

TEST(BenchMarkdown, NoTimedRowNoBound)
{
    BenchTable t = table("GB/s", 1024, 3352.32, 0.004, 0.01);
    t.rows[0].rate = 0;
    EXPECT_NE(bound_line(t).find("no row was timed"), std::string::npos) << bound_line(t);
}

}  // namespace
