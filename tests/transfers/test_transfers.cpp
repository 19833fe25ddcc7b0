// The transfers lab on a machine without a GPU: how versions cut the data
// (a pure function, cases derived by hand), the bytes each declares per link
// and the lower bound from them, the timeline's layout and its checks from a
// recorded table, and the emulator's refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "labs/common/bench_json.h"
#include "labs/common/lab.h"
#include "labs/transfers/check.h"
#include "labs/transfers/split.h"
#include "labs/transfers/timeline.h"
#include "labs/transfers/versions.h"

namespace warplab::transfers {
namespace {

// 10 in 3: 10 = 3·3 + 1, so the first piece takes the one left over: 4, 3, 3.
TEST(TransfersSplit, OddSizeFirstPiecesLonger)
{
    EXPECT_EQ(split(10, 3), (std::vector<Piece>{{0, 4}, {4, 3}, {7, 3}}));
    // 2^20 + 3 in 4: 262144 each and 3 left over for the first three.
    const std::size_t n = (std::size_t(1) << 20) + 3;
    EXPECT_EQ(split(n, 4), (std::vector<Piece>{{0, 262145}, {262145, 262145}, {524290, 262145}, {786435, 262144}}));
}

// More parts than elements: only as many pieces as elements, none empty; 0 parts or 0 elements: nothing.
TEST(TransfersSplit, MorePartsThanElements)
{
    EXPECT_EQ(split(2, 3), (std::vector<Piece>{{0, 1}, {1, 1}}));
    EXPECT_TRUE(split(0, 4).empty());
    EXPECT_TRUE(split(5, 0).empty());
    EXPECT_EQ(split(7, 1), (std::vector<Piece>{{0, 7}}));
}

// 7 elements over 2 GPUs: 4 and 3. Each share in 2 chunks: GPU 0 [0,2) [2,4),
// GPU 1 [4,6) [6,7); chunk k on stream k % 8 (8 streams, 2 chunks: streams 0 and 1 only).
TEST(TransfersSplit, ChunksOverGpusAndMoreStreamsThanChunks)
{
    const std::vector<Chunk> plan = plan_chunks(7, 2, 2, 8);
    EXPECT_EQ(plan, (std::vector<Chunk>{{0, 0, 0, 2}, {0, 1, 2, 2}, {1, 0, 4, 2}, {1, 1, 6, 1}}));
    EXPECT_EQ(streams_used(plan, 0), 2u);
    EXPECT_EQ(streams_used(plan, 1), 2u);
    EXPECT_EQ(streams_used(plan, 2), 0u);
}

// 17 elements, 16 chunks, 4 streams: 17 = 16·1 + 1, chunk 0 takes 2; chunks go
// round-robin 0 1 2 3 0 1 ..., so stream 1 holds chunks 1, 5, 9, 13.
TEST(TransfersSplit, RoundRobinOverStreams)
{
    const std::vector<Chunk> plan = plan_chunks(17, 1, 16, 4);
    ASSERT_EQ(plan.size(), 16u);
    EXPECT_EQ(plan[0], (Chunk{0, 0, 0, 2}));
    EXPECT_EQ(plan[1], (Chunk{0, 1, 2, 1}));
    EXPECT_EQ(plan[5], (Chunk{0, 1, 6, 1}));
    EXPECT_EQ(plan[15], (Chunk{0, 3, 16, 1}));
    std::size_t covered = 0;
    for (const Chunk& c : plan) covered += c.count;
    EXPECT_EQ(covered, 17u);
    // Fewer elements than chunks: 3 chunks of 1, on streams 0, 1, 2 of 8.
    EXPECT_EQ(plan_chunks(3, 1, 16, 8), (std::vector<Chunk>{{0, 0, 0, 1}, {0, 1, 1, 1}, {0, 2, 2, 1}}));
    // One GPU asked for, two elements over 2 GPUs: one each.
    EXPECT_EQ(plan_chunks(2, 2, 1, 1), (std::vector<Chunk>{{0, 0, 0, 1}, {1, 0, 1, 1}}));
}

// v3's rows: one per stream count, 16 chunks each.
TEST(TransfersVersions, StreamsRowsAndPlans)
{
    const auto rows = row_plans<V3>(1000);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1].name, "v3 4 streams");
    EXPECT_EQ(rows[1].plan.size(), 16u);
    EXPECT_EQ(streams_used(rows[2].plan, 0), 8u);
    EXPECT_EQ(row_plans<V5>(1001).front().plan, (std::vector<Chunk>{{0, 0, 0, 501}, {1, 0, 501, 500}}));
}

// Bytes per link, n = 1001 floats (4004 bytes), halves 501 and 500:
//   v1: host→GPU 0 4004, GPU 0→host 4004, GPU 0 memory 8008 (x read, y written).
//   v4: the same over PCIe, nothing in GPU memory (the kernel reads host memory).
//   v5: host→GPU g and GPU g→host 2004 / 2000; memory 4008 / 4000.
//   v6: GPU 1→GPU 0 2000 (its half of y); GPU 0→host all 4004; GPU 1→host none.
//   v7: each GPU sends n floats in a 2-GPU ring: 4004 each way.
TEST(TransfersVersions, BytesPerLinkByHand)
{
    const std::size_t n = 1001;
    const LinkBytes v1 = V1::moves(n);
    EXPECT_EQ(v1.at(Link::HostToGpu, 0), 4004u);
    EXPECT_EQ(v1.at(Link::GpuToHost, 0), 4004u);
    EXPECT_EQ(v1.at(Link::Memory, 0), 8008u);
    EXPECT_EQ(v1.at(Link::HostToGpu, 1), 0u);
    const LinkBytes v4 = V4::moves(n);
    EXPECT_EQ(v4.at(Link::HostToGpu, 0), 4004u);
    EXPECT_EQ(v4.at(Link::Memory, 0), 0u);
    const LinkBytes v5 = V5::moves(n);
    EXPECT_EQ(v5.at(Link::HostToGpu, 0), 2004u);
    EXPECT_EQ(v5.at(Link::HostToGpu, 1), 2000u);
    EXPECT_EQ(v5.at(Link::GpuToHost, 1), 2000u);
    EXPECT_EQ(v5.at(Link::Memory, 1), 4000u);
    const LinkBytes v6 = V6::moves(n);
    EXPECT_EQ(v6.at(Link::Peer, 1), 2000u);
    EXPECT_EQ(v6.at(Link::Peer, 0), 0u);
    EXPECT_EQ(v6.at(Link::GpuToHost, 0), 4004u);
    EXPECT_EQ(v6.at(Link::GpuToHost, 1), 0u);
    const LinkBytes v7 = V7::moves(n);
    EXPECT_EQ(v7.at(Link::Peer, 0), 4004u);
    EXPECT_EQ(v7.at(Link::Peer, 1), 4004u);
}

// The bound is the busiest link's time. v5 at n = 1001 with host→GPU 0 at
// 0.001 GB/s (2004 B: 2.004 ms), host→GPU 1 at 0.0005 (2000 B: 4 ms), the
// rest fast: 4 ms, on host→GPU 1. A link not measured bounds nothing.
TEST(TransfersVersions, LowerBoundIsTheBusiestLink)
{
    const auto rate = [](Link l, int g) {
        if (l == Link::HostToGpu) return g == 0 ? 0.001 : 0.0005;
        return l == Link::GpuToHost ? 1.0 : 0.0;
    };
    const Bound b = lower_bound(V5::moves(1001), rate);
    EXPECT_NEAR(b.ms, 4.0, 1e-12);
    EXPECT_EQ(b.link, "host→GPU 1");
    EXPECT_EQ(lower_bound(V5::moves(1001), [](Link, int) { return 0.0; }).ms, 0.0);
}

BenchTable fixture()
{
    std::ifstream in(std::string(WARPLAB_TEST_DIR) + "/timeline_fixture.json");
    return tables_from_document(nlohmann::json::parse(in)).at(0);
}

// The fixture's v3 run (10 ms wall): GPU 0 rows copy in, compute, copy out in
// that order (kEngines), whatever the spans' order; bars at start / 10 and
// end / 10; 2,000,000 bytes in 2 ms = 1.0 GB/s, 1.91 MiB prints as "2 MiB".
TEST(TransfersTimeline, LayoutFromARecordedTable)
{
    const BenchTable t = fixture();
    ASSERT_EQ(t.timelines.size(), 2u);
    const RunTimeline* v3 = find_timeline(t, "v3 2 streams");
    ASSERT_NE(v3, nullptr);
    const TimelineChart chart = timeline_chart(*v3);
    ASSERT_EQ(chart.rows.size(), 3u);
    EXPECT_EQ(chart.rows[0].name(), "GPU 0 copy in");
    EXPECT_EQ(chart.rows[1].name(), "GPU 0 compute");
    EXPECT_EQ(chart.rows[2].name(), "GPU 0 copy out");
    ASSERT_EQ(chart.rows[0].bars.size(), 2u);
    EXPECT_DOUBLE_EQ(chart.rows[0].bars[1].from, 0.2);
    EXPECT_DOUBLE_EQ(chart.rows[0].bars[1].to, 0.4);
    EXPECT_EQ(chart.rows[0].bars[1].stream, 1u);
    EXPECT_EQ(chart.rows[0].bars[0].label, "2 MiB · 1.0 GB/s");
    EXPECT_EQ(chart.rows[1].bars[0].label, "0.500 ms");
    // 2,000,000 B in 5 ms: 0.4 GB/s.
    EXPECT_EQ(chart.rows[2].bars[0].label, "2 MiB · 0.4 GB/s");
    // v5: GPU 0's rows before GPU 1's; copy in before copy out though recorded after it (on another stream).
    const TimelineChart two = timeline_chart(*find_timeline(t, "v5"));
    ASSERT_EQ(two.rows.size(), 3u);
    EXPECT_EQ(two.rows[0].name(), "GPU 0 copy in");
    EXPECT_EQ(two.rows[1].name(), "GPU 0 copy out");
    EXPECT_EQ(two.rows[2].name(), "GPU 1 copy in");
    EXPECT_DOUBLE_EQ(two.rows[1].bars[0].from, 0.75);
    EXPECT_EQ(find_timeline(t, "v9"), nullptr);
}

// Copies of one direction on two streams, as events see them (from the GPU):
// stream 0's copy in [0, 1.3], stream 1's [0.04, 2.7], 64 MiB each. The engine
// ran stream 1's after stream 0's ended: it waited [0.04, 1.3] and ran
// [1.3, 2.7], 1.4 ms: 67108864 B / 1.4 ms = 47.9 GB/s. Kernels on two streams
// may run at once: stream 1's [2.7, 2.9] keeps its start inside stream 0's [1.3, 2.8]. Wall 4 ms.
TEST(TransfersTimeline, CopiesOfOneDirectionQueueOnTheEngine)
{
    const std::size_t mib64 = std::size_t(64) << 20;
    const RunTimeline run{"v3 2 streams", 4.0,
                          {{0, 0, "copy in", mib64, 0.0, 1.3}, {0, 1, "copy in", mib64, 0.04, 2.7},
                           {0, 0, "compute", 0, 1.3, 2.8}, {0, 1, "compute", 0, 2.7, 2.9}}};
    EXPECT_EQ(timeline_problem(run, 0), "");
    const TimelineChart c = timeline_chart(run);
    ASSERT_EQ(c.rows.size(), 2u);
    const Bar& second = c.rows[0].bars[1];
    EXPECT_DOUBLE_EQ(second.from, 0.01);
    EXPECT_DOUBLE_EQ(second.running_from, 1.3 / 4.0);
    EXPECT_DOUBLE_EQ(second.to, 2.7 / 4.0);
    EXPECT_EQ(second.label, "64 MiB · 47.9 GB/s");
    EXPECT_DOUBLE_EQ(c.rows[0].bars[0].running_from, 0.0);  // the first copy never waited
    EXPECT_DOUBLE_EQ(c.rows[1].bars[1].running_from, c.rows[1].bars[1].from);  // kernels overlap: no wait
    // 8 cells of 0.5 ms: stream 0 ran in cells 0-2 ([0, 1.3]), stream 1 in 2-5 ([1.3, 2.7]), the later one drawn last.
    BenchTable t;
    t.n = 1;
    t.rows.push_back(BenchRow{});
    t.rows.back().version = run.version;
    t.timelines = {run};
    const std::string text = timeline_text(t, 8);
    EXPECT_NE(text.find("GPU 0 copy in    |001111..| 2 spans, busy 2.700 ms"), std::string::npos) << text;
}

// Both fixture runs are ordered and nested; each kind of wrong timeline is
// named: a span ending before it starts, one before the base event, one past
// the run, and two overlapping on one stream (two streams may overlap).
TEST(TransfersTimeline, ProblemsAreFound)
{
    const BenchTable t = fixture();
    for (const RunTimeline& r : t.timelines) EXPECT_EQ(timeline_problem(r, 0), "") << r.version;
    RunTimeline bad = t.timelines[0];
    bad.spans[1].end_ms = 1.5;  // compute [2, 1.5]
    EXPECT_NE(timeline_problem(bad, 0).find("ends before it starts"), std::string::npos);
    bad = t.timelines[0];
    bad.spans[0].start_ms = -0.1;
    EXPECT_NE(timeline_problem(bad, 0).find("before its GPU's base event"), std::string::npos);
    bad = t.timelines[0];
    bad.spans[3].end_ms = 10.2;
    EXPECT_NE(timeline_problem(bad, 0).find("ends after the run"), std::string::npos);
    EXPECT_EQ(timeline_problem(bad, 0.5), "");  // within the clocks' slack
    bad = t.timelines[0];
    bad.spans[1].start_ms = 1.5;  // compute starts while stream 0's copy in [0, 2] runs
    EXPECT_NE(timeline_problem(bad, 0).find("starts before the span issued before it"), std::string::npos);
}

// The text: the measured links, each row's bytes and bound, a row of cells per engine.
// v3 (as v1) at n = 1000: 4000 B over host→GPU 0 at 0.001 GB/s is 4 ms, over
// GPU 0→host at 0.002 is 2 ms, 8000 B of memory at 1 GB/s 0.008 ms: bound 4 ms on host→GPU 0.
// 10 cells of 1 ms: stream 0's copy in covers cells 0-1, stream 1's 2-3.
TEST(TransfersTimeline, TextForTheCli)
{
    const std::string text = timeline_text(fixture(), 10);
    EXPECT_NE(text.find("host→GPU 0 0.0 GB/s"), std::string::npos) << text;
    EXPECT_NE(text.find("v3 2 streams: 10.000 ms (median); bound 4.000 ms on host→GPU 0"), std::string::npos) << text;
    EXPECT_NE(text.find("GPU 0 copy in    |0011......| 2 spans, busy 4.000 ms"), std::string::npos) << text;
    // v5 at n = 1000: host→GPU 1 carries 500 floats, 2000 B at 0.0005 GB/s: 4 ms.
    EXPECT_NE(text.find("v5: 4.000 ms (median); bound 4.000 ms on host→GPU 1"), std::string::npos) << text;
}

// The table survives a round trip through the results document.
TEST(TransfersTimeline, JsonRoundTrip)
{
    const BenchTable t = fixture();
    const BenchTable back = tables_from_document(results_document({t})).at(0);
    ASSERT_EQ(back.timelines.size(), t.timelines.size());
    EXPECT_EQ(back.timelines[0].spans[2].stream, 1u);
    EXPECT_EQ(back.links[3].link, "host→GPU 1");
    EXPECT_DOUBLE_EQ(back.rows[0].bound_ms, 5.0);
    EXPECT_DOUBLE_EQ(back.rows[1].bound_ms, 0.0);
}

// What was recorded on a GPU (results/*-transfers.json, when there is one):
// every row's result was right and every timeline ordered and nested.
TEST(TransfersTimeline, RecordedRunsAreOrderedAndNested)
{
    unsigned checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(WARPLAB_SOURCE_DIR) + "/results")) {
        if (entry.path().filename().string().find("-transfers.json") == std::string::npos) continue;
        std::ifstream in(entry.path());
        for (const BenchTable& t : tables_from_document(nlohmann::json::parse(in))) {
            for (const BenchRow& r : t.rows) EXPECT_TRUE(r.ok) << r.version;
            EXPECT_EQ(t.timelines.size(), t.rows.size());
            for (const RunTimeline& r : t.timelines) {
                EXPECT_EQ(timeline_problem(r, 0.05), "") << entry.path() << " " << r.version;
                for (const TimelineRow& row : timeline_chart(r).rows)
                    for (const Bar& b : row.bars) EXPECT_TRUE(b.from >= 0 && b.to <= 1.01 && b.from <= b.to) << r.version;
                ++checked;
            }
        }
    }
    if (checked == 0) GTEST_SKIP() << "no transfers results recorded yet";
}

// The check every GPU run goes through: a right y passes; programs that do
// less (the last chunk never copied back, left as the NaN poison) or compute
// another thing (y = 2x, one element off by one unit in the last place) are
// caught at the first wrong element. The inputs are seeded: same seed, same x.
TEST(TransfersCheck, WrongResultsAreCaught)
{
    const std::size_t n = 1001;
    const std::vector<float> x = make_input(n, 7);
    EXPECT_EQ(make_input(n, 7), x);
    EXPECT_NE(make_input(n, 8), x);
    std::vector<float> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = 2 * x[i] + 1;
    EXPECT_EQ(first_wrong(x, y.data()), n);
    // 1001 = 16·62 + 9: nine chunks of 63, seven of 62; the last starts at 9·63 + 6·62 = 939.
    const Chunk last = plan_chunks(n, 1, 16, 4).back();
    ASSERT_EQ(last.offset, 939u);
    std::vector<float> short_of_last_chunk = y;
    std::fill(short_of_last_chunk.begin() + std::ptrdiff_t(last.offset), short_of_last_chunk.end(), std::nanf(""));
    EXPECT_EQ(first_wrong(x, short_of_last_chunk.data()), 939u);
    std::vector<float> without_offset(n);
    for (std::size_t i = 0; i < n; ++i) without_offset[i] = 2 * x[i];
    EXPECT_EQ(first_wrong(x, without_offset.data()), 0u);
    std::vector<float> one_off = y;
    one_off[500] = std::nextafter(one_off[500], 1e9f);
    EXPECT_EQ(first_wrong(x, one_off.data()), 500u);
    // Every x is a multiple of 1/8 in [-125, 125], so 2x + 1 is exact.
    for (float v : x) EXPECT_TRUE(v * 8 == std::floor(v * 8) && v >= -125 && v <= 125) << v;
}

// Every version is refused by the emulator in one line that says why.
TEST(TransfersLab, EmulatorRefusesInOneLine)
{
    const Lab* lab = find_lab("transfers");
    ASSERT_NE(lab, nullptr);
    EXPECT_TRUE(lab->host_programs);
    ASSERT_EQ(lab->versions.size(), 7u);
    for (const Version& v : lab->versions) {
        RunRequest req;
        req.version = v.id;
        req.n = 1000;
        req.type = "float";
        req.backend = BackendChoice::Cpu;
        try {
            lab->run(req);
            ADD_FAILURE() << v.id << " ran on the emulator";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            EXPECT_NE(what.find(std::string(v.id) + " runs only on a GPU: the transfers lab times copies"), std::string::npos) << what;
        }
    }
}

}  // namespace
}  // namespace warplab::transfers
