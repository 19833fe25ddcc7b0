// The browser's viewer gets each trace from its Worker as JSON (the trace
// document and its extras, labs/common/traced_run.h) and rebuilds the run from
// it; the desktop viewer keeps the run trace_version returned. The rebuilt run
// must be that run: every event, step, total, shared snapshot and result field
// the viewer draws. Checked on runs that use each field: reduction v2 (shared
// snapshots, a 1D block), matmul v5 (shape, 2D block and grid, the check and
// problem lines), image v2 (partial sums per pass), reduction v3 at warp width 64
// and on floats. A document of another run must not read as this one (the
// comparison can fail), and a malformed one is refused, not misread.
#include <gtest/gtest.h>

#include "labs/common/lab.h"
#include "labs/common/traced_run.h"

namespace {

using namespace warplab;

struct Case {
    const char* lab;
    const char* version;
    const char* type;
    unsigned warp_width;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.lab << ' ' << c.version << ' ' << c.type << ' ' << c.warp_width; }

RunRequest request_of(const Case& c)
{
    const Lab& lab = *find_lab(c.lab);
    const Version& v = *find_version(lab, c.version);
    RunRequest req;
    req.version = c.version;
    req.n = default_n(lab, v);
    req.block = v.bench_block;
    req.type = c.type;
    req.warp_width = c.warp_width;
    return req;
}

// What the Worker sends, as text, read back as the page's viewer reads it.
TracedRun through_json(const Lab& lab, const RunRequest& req, const TracedRun& run)
{
    const std::string document = trace_document(lab, req, run).dump(), extras = run_extras(run).dump();
    return traced_run_from_json(nlohmann::json::parse(document), nlohmann::json::parse(extras));
}

void expect_same_run(const TracedRun& a, const TracedRun& b)
{
    EXPECT_EQ(a.block.events, b.block.events);
    EXPECT_EQ(a.block.steps, b.block.steps);
    EXPECT_EQ(a.block.threads, b.block.threads);
    EXPECT_EQ(a.block.warp_size, b.block.warp_size);
    ASSERT_EQ(a.steps.size(), b.steps.size());
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
        EXPECT_EQ(a.steps[i].key, b.steps[i].key) << "step " << i;
        EXPECT_EQ(a.steps[i].lines, b.steps[i].lines) << "step " << i;
        EXPECT_EQ(a.steps[i].active_threads, b.steps[i].active_threads) << "step " << i;
        EXPECT_EQ(a.steps[i].partial_warps, b.steps[i].partial_warps) << "step " << i;
        EXPECT_EQ(a.steps[i].shared_load.wavefronts, b.steps[i].shared_load.wavefronts) << "step " << i;
        EXPECT_EQ(a.steps[i].shared_load_ways, b.steps[i].shared_load_ways) << "step " << i;
        EXPECT_EQ(a.steps[i].global_load.sectors, b.steps[i].global_load.sectors) << "step " << i;
    }
    EXPECT_EQ(a.totals.steps, b.totals.steps);
    EXPECT_EQ(a.totals.shared_load.wavefronts, b.totals.shared_load.wavefronts);
    EXPECT_EQ(a.totals.shared_store.ideal, b.totals.shared_store.ideal);
    EXPECT_EQ(a.totals.global_store.sectors, b.totals.global_store.sectors);
    EXPECT_EQ(a.totals.partial_warp_steps, b.totals.partial_warp_steps);
    EXPECT_EQ(a.shared_after, b.shared_after);
    EXPECT_EQ(a.per_machine_instruction, b.per_machine_instruction);
    const RunResult &r = a.result, &s = b.result;
    EXPECT_EQ(r.backend, s.backend);
    EXPECT_EQ(r.value, s.value);
    EXPECT_EQ(r.expected, s.expected);
    EXPECT_EQ(r.ok, s.ok);
    EXPECT_EQ(r.threads_per_block, s.threads_per_block);
    EXPECT_EQ(r.warp_width, s.warp_width);
    EXPECT_EQ(r.problem, s.problem);
    EXPECT_EQ(r.check, s.check);
    EXPECT_EQ(r.shape, s.shape);
    EXPECT_EQ(r.block_dim, s.block_dim);
    EXPECT_EQ(r.grid_dim, s.grid_dim);
    EXPECT_EQ(r.warnings, s.warnings);
    EXPECT_EQ(r.records_cut, s.records_cut);
    ASSERT_EQ(r.pass_grids.size(), s.pass_grids.size());
    for (std::size_t i = 0; i < r.pass_grids.size(); ++i) {
        EXPECT_EQ(r.pass_grids[i].width, s.pass_grids[i].width);
        EXPECT_EQ(r.pass_grids[i].height, s.pass_grids[i].height);
        EXPECT_EQ(r.pass_grids[i].values, s.pass_grids[i].values);  // floats, bit for bit through JSON's decimal
    }
    EXPECT_EQ(r.picture.width, s.picture.width);  // the image lab's picture as it ran (the viewer draws it)
    EXPECT_EQ(r.picture.height, s.picture.height);
    EXPECT_EQ(r.picture.cell, s.picture.cell);
    EXPECT_EQ(r.picture.rgb, s.picture.rgb);
}

class TraceReader : public ::testing::TestWithParam<Case> {};

TEST_P(TraceReader, RebuildsTheRunTheViewerDraws)
{
    const Lab& lab = *find_lab(GetParam().lab);
    const RunRequest req = request_of(GetParam());
    const TracedRun run = trace_version(lab, req);
    ASSERT_TRUE(run.result.ok);
    ASSERT_FALSE(run.block.events.empty());
    expect_same_run(run, through_json(lab, req, run));
}

INSTANTIATE_TEST_SUITE_P(Runs, TraceReader,
                         ::testing::Values(Case{"reduction", "v2", "int", 32}, Case{"matmul", "v5", "float", 32},
                                           Case{"image", "v2", "float", 32}, Case{"reduction", "v3", "float", 64}),
                         [](const auto& info) {
                             return std::string(info.param.lab) + "_" + info.param.version + "_" + info.param.type + "_" +
                                    std::to_string(info.param.warp_width);
                         });

// The fields these runs must carry for the test above to test them.
TEST(TraceReaderCases, UseEveryField)
{
    const Lab& matmul = *find_lab("matmul");
    const TracedRun m = trace_version(matmul, request_of({"matmul", "v5", "float", 32}));
    EXPECT_FALSE(m.result.problem.empty());
    EXPECT_FALSE(m.result.check.empty());
    EXPECT_EQ(m.result.block_dim.size(), 3u);
    const Lab& image = *find_lab("image");
    const TracedRun i = trace_version(image, request_of({"image", "v2", "float", 32}));
    EXPECT_FALSE(i.result.pass_grids.empty());
    EXPECT_FALSE(i.result.picture.rgb.empty());
    const Lab& reduction = *find_lab("reduction");
    const TracedRun r = trace_version(reduction, request_of({"reduction", "v2", "int", 32}));
    EXPECT_FALSE(r.shared_after.empty());
    EXPECT_TRUE(r.per_machine_instruction);
}

// Reduction v2 read back from v3's document differs (the comparison sees it), and
// a document with an event's kind misspelt or the totals missing is refused.
TEST(TraceReaderCases, AnotherRunDiffersAndMalformedIsRefused)
{
    const Lab& lab = *find_lab("reduction");
    const RunRequest v2 = request_of({"reduction", "v2", "int", 32}), v3 = request_of({"reduction", "v3", "int", 32});
    const TracedRun a = trace_version(lab, v2), b = trace_version(lab, v3);
    const TracedRun b_read = through_json(lab, v3, b);
    EXPECT_NE(a.block.events, b_read.block.events);
    EXPECT_NE(a.totals.shared_load.wavefronts, b_read.totals.shared_load.wavefronts);

    nlohmann::json doc = trace_document(lab, v2, a);
    const nlohmann::json extras = run_extras(a);
    nlohmann::json misspelt = doc;
    misspelt["blocks"][0]["events"][0]["kind"] = "lod";
    EXPECT_THROW(traced_run_from_json(misspelt, extras), std::invalid_argument);
    doc.erase("totals");
    EXPECT_THROW(traced_run_from_json(doc, extras), nlohmann::json::exception);
}

}  // namespace
