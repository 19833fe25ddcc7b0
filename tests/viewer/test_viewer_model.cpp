// The derivations under the viewer's panels, on real traces of the reduction
// lab (emulator) and on small hand-made events.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "labs/common/data_dir.h"
#include "labs/common/traced_run.h"
#include "viewer/app/app.h"
#include "viewer/panels/barrier_switch.h"
#include "viewer/model/format.h"
#include "viewer/panels/panel_time_published.h"
#include "viewer/panels/panels.h"
#include "viewer/platform/platform.h"
#include "viewer/model/source_model.h"
#include "viewer/model/step_model.h"
#include "viewer/model/timing_model.h"
#include "warplab/trace/compare.h"

namespace warplab::viewer {
namespace {

TracedRun reduction_trace(const char* version, unsigned block = 256)
{
    RunRequest req;
    req.version = version;
    req.n = 4096;
    req.block = block;
    req.backend = BackendChoice::Cpu;
    req.schedule = wl::emu::Schedule::Lockstep;
    return trace_version(*find_lab("reduction"), req);
}

std::size_t count(const BlockActivity& a, std::uint32_t warp, LaneState s)
{
    return std::size_t(std::count(a.lanes.begin() + warp * 32, a.lanes.begin() + warp * 32 + 32, s));
}

// v1, step 1 (s = 1): thread tid works when tid % 2 == 0, so every warp has 16
// of its 32 lanes active and is partially active. v3, step 1 (s = 128): threads
// 0..127 work: warps 0-3 fully, warps 4-7 not at all; no warp is partial.
TEST(ViewerModel, ActivityOfV1AndV3AtStep1)
{
    const BlockActivity v1 = block_activity(reduction_trace("v1").block, 1);
    const BlockActivity v3 = block_activity(reduction_trace("v3").block, 1);
    ASSERT_EQ(v1.warps, 8u);
    for (std::uint32_t w = 0; w < 8; ++w) {
        EXPECT_EQ(count(v1, w, LaneState::Active), 16u) << "warp " << w;
        EXPECT_TRUE(v1.partial[w]);
        EXPECT_EQ(count(v3, w, LaneState::Active), w < 4 ? 32u : 0u) << "warp " << w;
        EXPECT_FALSE(v3.partial[w]);
    }
}

// v2, step 1: lane l of warp 0 reads word 2l + 1 (load of sdata[index + s])
// or 2l; lanes l and l + 16 fall in the same bank: 2 ways on the even or odd
// banks, none on the others. v3's loads are 32 consecutive words: 1 way.
TEST(ViewerModel, BanksOfTheWorstInstruction)
{
    const TracedRun v2 = reduction_trace("v2");
    const auto worst = worst_shared_event(v2.block, 1);
    ASSERT_TRUE(worst);
    const BankView b = bank_view(v2.block.events[*worst]);
    EXPECT_EQ(b.cost.wavefronts, 2u);
    EXPECT_EQ(b.cost.ideal, 1u);
    EXPECT_EQ(*std::max_element(b.ways.begin(), b.ways.end()), 2u);
    EXPECT_EQ(b.rows.size(), 2u);  // words 0..63

    const TracedRun v3 = reduction_trace("v3");
    const BankView c = bank_view(v3.block.events[*worst_shared_event(v3.block, 1)]);
    EXPECT_EQ(*std::max_element(c.ways.begin(), c.ways.end()), 1u);
}

// v3, step 1: thread t < 128 reads sdata[t + 128] and writes sdata[t]: 128
// arrows, each from t + 128 to t: the fold of the upper half onto the lower.
TEST(ViewerModel, FlowsOfTheFold)
{
    const TracedRun v3 = reduction_trace("v3");
    const ArrayStep st = array_step(v3.block, 1, 0, 4, 256);
    ASSERT_EQ(st.flows.size(), 128u);
    for (const Flow& f : st.flows) {
        EXPECT_EQ(f.to, f.thread);
        EXPECT_EQ(f.from, f.thread + 128u);
    }
    EXPECT_EQ(std::count(st.written.begin(), st.written.end(), 1), 128);
}

// v5's warp tail reads sdata[tid + s] in one step and writes sdata[tid] in the
// next (the sum waits in a register across a __syncwarp()): the write's step
// still shows the arrows from tid + s.
TEST(ViewerModel, FlowsAcrossAWarpSync)
{
    const TracedRun v5 = reduction_trace("v5");
    bool found = false;
    for (std::uint32_t s = 0; s < v5.steps.size() && !found; ++s) {
        const ArrayStep st = array_step(v5.block, s, 0, 4, 256);
        const bool only_writes = !st.flows.empty() && std::count(st.read.begin(), st.read.end(), 1) == 0;
        if (!only_writes) continue;
        found = true;
        for (const Flow& f : st.flows) EXPECT_GT(f.from, f.to);
    }
    EXPECT_TRUE(found) << "no step of v5 writes without reading";
}

// Threads of a 4x4 tile at (row 2, col 8) of a 16-wide matrix, one element
// each: the tile's pitch is found from the runs, and from the lab's hint.
TEST(ViewerModel, OutputTileIn2D)
{
    BlockTrace block;
    block.threads = 32;
    block.steps = {{0, 0}};
    WarpEvent e;
    e.kind = wl::trace::Kind::Store;
    e.space = wl::trace::Space::Global;
    e.size = 4;
    e.array = 2;
    e.mask = 0xFFFF;
    e.existing = 0xFFFFFFFF;
    for (unsigned lane = 0; lane < 16; ++lane) e.offset[lane] = 4 * ((2 + lane / 4) * 16 + 8 + lane % 4);
    block.events.push_back(e);
    for (std::uint64_t hint : {std::uint64_t(0), std::uint64_t(16)}) {
        const auto tile = output_tile(block, 4, hint);
        ASSERT_TRUE(tile);
        EXPECT_EQ(tile->array, 2);
        EXPECT_EQ(tile->pitch, 16u);
        EXPECT_EQ(tile->first_row, 2u);
        EXPECT_EQ(tile->first_col, 8u);
        EXPECT_EQ(tile->rows, 4u);
        EXPECT_EQ(tile->cols, 4u);
        EXPECT_EQ(owned_elements(*tile, 5), std::vector<std::uint64_t>{3 * 16 + 9});
    }
}

// The diff marks the lines of `after` that are not in the longest common
// subsequence, and tells comment-only lines apart.
TEST(ViewerModel, ChangedLines)
{
    const std::vector<std::string> before = {"// v1", "int a = 1;", "int b = 2;", "return a;"};
    const std::vector<std::string> after = {"// v2", "int a = 1;", "int c = 3;", "int b = 2;  ", "return b;"};
    const auto ch = changed_lines(before, after);
    ASSERT_EQ(ch.size(), 5u);
    EXPECT_EQ(ch[0], LineChange::CommentChanged);
    EXPECT_EQ(ch[1], LineChange::Same);
    EXPECT_EQ(ch[2], LineChange::Changed);
    EXPECT_EQ(ch[3], LineChange::Same);  // trailing blanks do not count
    EXPECT_EQ(ch[4], LineChange::Changed);
}

// nvcc's messages as first_warnings keeps them: a warning line, the quoted
// source and a caret line. Only "NAME(LINE): warning" lines of the shown
// file count: another file's warning (a header's, line 7) and the quoted
// code below a warning (which holds "(i >= 0") are not lines of it.
TEST(ViewerModel, WarnedLinesOfTheShownFile)
{
    const std::string nvcc =
        "tests/cli/kernels/countdown_sum.cu(12): warning #186-D: pointless comparison of unsigned integer with zero\n"
        "      for (unsigned s = blockDim.x / 2; s >= 0; s >>= 1)\n"
        "                                          ^\n"
        "helper.cuh(7): warning #177-D: variable \"x\" was declared but never referenced\n"
        "countdown_sum.cu(30): warning #186-D: pointless comparison of unsigned integer with zero\n"
        "    if (i >= 0 && i < n)\n"
        "(and 2 more warnings)";
    const auto lines = warned_lines(nvcc, "countdown_sum.cu");
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines.at(12), "#186-D: pointless comparison of unsigned integer with zero");
    EXPECT_TRUE(lines.count(30));
    EXPECT_TRUE(warned_lines(nvcc, "other.cu").empty());
    EXPECT_TRUE(warned_lines("", "countdown_sum.cu").empty());
}

TEST(ViewerModel, KernelParameterNamesFromTheSource)
{
    SourceCache sources(data_dir().string());
    const SourceFile& f = sources.get("kernels/reduction/02_interleaved_strided.cuh");
    ASSERT_TRUE(f.found) << "source root " << sources.root();
    EXPECT_EQ(kernel_parameter_names(f, "reduce_interleaved_strided"), (std::vector<std::string>{"g_in", "g_out", "n"}));
}

// The names are the definition's, read as code: a comment and a string after
// another kernel that name the kernel with other arguments do not mislead it,
// and a host function is no kernel;
// a namespace's kernel is found by its bare name. The includes are the
// file's quoted kernels/ headers, not a commented-out one.
TEST(ViewerModel, KernelParameterNamesFromTheDefinition)
{
    SourceFile f;
    f.found = true;
    f.lines = {"#include \"kernels/reduction/common.cuh\"",
               "// #include \"kernels/reduction/old.cuh\"",
               "#include <cstdio>",
               "__global__ void first(int* p) {}",
               "// scale(float* wrong, int also_wrong) was the first try",
               "const char* usage = \"scale(float* nope)\";",
               "namespace lab {",
               "__global__ void scale(float* __restrict__ out, const float* in, int n) {}",
               "}",
               "int main() { lab::scale<<<1, 32>>>(nullptr, nullptr, 0); }"};
    EXPECT_EQ(kernel_parameter_names(f, "scale"), (std::vector<std::string>{"out", "in", "n"}));
    EXPECT_TRUE(kernel_parameter_names(f, "main").empty());  // not a kernel
    EXPECT_EQ(included_kernel_files(f), (std::vector<std::string>{"kernels/reduction/common.cuh"}));
}

TEST(ViewerModel, CompactNumbers)
{
    EXPECT_EQ(compact_number(7), "7");
    EXPECT_EQ(compact_number(9999), "9999");
    EXPECT_EQ(compact_number(18678), "18.7k");
    EXPECT_EQ(compact_number(-2.5), "-2.5");
    EXPECT_EQ(lines_text({41, 57, 72, 73, 74}, 3), "41, 57, 72, ...");
}

// A cell of two characters (the image lab's shared floats in presenter mode at
// 1024x768): 0.7 is ".7" (no leading zero), 0.13 ".1" (one significant digit),
// 0.04 ".0" (one decimal place, as its neighbours are rounded; blank before,
// which read as "never written"), -0.5 does not fit ("-.5" is three); with five
// characters 0.123 keeps its three digits; 123 fits nowhere in two.
TEST(ViewerModel, FittingNumbersNeverLeaveAWrittenCellBlank)
{
    const auto two = [](const std::string& t) { return t.size() <= 2; };
    EXPECT_EQ(fitting_number(0.7, two), ".7");
    EXPECT_EQ(fitting_number(0.13, two), ".1");
    EXPECT_EQ(fitting_number(0.04, two), ".0");
    EXPECT_EQ(fitting_number(0.96, two), "1");
    EXPECT_EQ(fitting_number(-0.5, two), "");
    EXPECT_EQ(fitting_number(123, two), "");
    EXPECT_EQ(fitting_number(0.123, [](const std::string& t) { return t.size() <= 5; }), "0.123");
    EXPECT_EQ(fitting_number(0.04, [](const std::string& t) { return t.size() <= 3; }), ".04");
}

}  // namespace
}  // namespace warplab::viewer

namespace warplab::viewer {
namespace {

// Selects a lab's version, traced on the emulator whatever the machine has.
void select_on_emulator(App& app, const std::string& lab, const std::string& version)
{
    select_by_name(app, lab, version);
    Selection s = app.sel;
    s.backend = BackendChoice::Cpu;
    select_settings(app, s);
}

// The keys a teacher uses: right/left step, down/up version, F presents, Esc
// leaves presenting and then quits. No window needed: keys act on the state.
// A version is compared (time chart, source diff) with the version it
// changes: the step before it, passing over variants, unless its entry says
// which it builds on (matmul v10 starts again from v8, v13 from v9).
TEST(ViewerModel, AVersionIsComparedWithTheOneItBuildsOn)
{
    App app;
    struct Case {
        const char *lab, *version, *compared;
    };
    for (const Case& c : {Case{"matmul", "v9", "v8"}, Case{"matmul", "v10", "v8"}, Case{"matmul", "v11", "v10"},
                          Case{"matmul", "v13", "v9"}, Case{"matmul", "v14", "v12"},
                          Case{"reduction", "v6", "v5"}}) {
        SCOPED_TRACE(std::string(c.lab) + " " + c.version);
        select_by_name(app, c.lab, c.version);
        const auto compared = compared_version(app);
        ASSERT_TRUE(compared.has_value());
        EXPECT_STREQ(current_lab(app).versions[*compared].id, c.compared);
    }
}

// The timeline's sentence on a transfers row: the recording's bound of v1
// (19.476 ms) against a run of 22.9 ms is 19.476 / 22.9 = 85 % of the links'
// speed; the bound rounds to 19.5 ms.
TEST(ViewerModel, TheLowerBoundSentence)
{
    BenchRow r;
    r.median_ms = 22.9, r.bound_ms = 19.476, r.pct_peak = 100.0 * 19.476 / 22.9;
    EXPECT_EQ(bound_sentence(r), "lower bound 19.5 ms: this run is at 85 % of the links' speed");
}

// Then and now opens on the table of the deck the lab's versions follow:
// reduction's are Harris's, whose table is G80's, though results/published/
// sorts Falsafi's (its GPU unnamed) first. A table picked stays picked until
// another lab is chosen. matmul names no deck: its first table naming a GPU.
TEST(ViewerModel, ThenAndNowOpensOnTheDeckTheVersionsFollow)
{
    App app;
    app.timing = load_recorded_timing(data_dir().string() + "/results");
    select_by_name(app, "reduction", "v1");
    std::vector<std::string> gpus;
    for (const PublishedTable& t : app.timing.published.tables)
        if (t.lab == "reduction") gpus.push_back(t.gpu);
    ASSERT_GE(gpus.size(), 2u);
    EXPECT_EQ(gpus.front(), "") << "the first in file order names no GPU";
    const int shown = shown_published(app);
    ASSERT_GE(shown, 0);
    EXPECT_EQ(gpus[std::size_t(shown)], "NVIDIA G80");
    app.timing.published_shown = 1;  // picked: another table
    EXPECT_EQ(shown_published(app), 1);
    const auto lab_index = [](const char* id) { return std::size_t(find_lab(id) - all_labs().data()); };
    select_lab(app, lab_index("matmul"));
    const int matmul = shown_published(app);
    ASSERT_GE(matmul, 0);
    EXPECT_EQ(matmul, 0) << "the pick is reset by the lab's change (else 1); matmul's first table names its GPU";
    select_lab(app, lab_index("reduction"));
    EXPECT_EQ(gpus[std::size_t(shown_published(app))], "NVIDIA G80");
}

// The time panel opens on the lab's ladder: of three recorded image tables
// at one n (group 4x4, each version's own groups, group 32x32) the one
// without a --block is shown, whatever the order of the files; the others
// are named by their group in the table list.
TEST(ViewerModel, TheTimePanelOpensOnTheTableAtEachVersionsOwnBlock)
{
    Timing timing;
    for (std::vector<unsigned> block : {std::vector<unsigned>{4, 4}, std::vector<unsigned>{}, std::vector<unsigned>{32, 32}}) {
        BenchTable t;
        t.lab = "image", t.type = "float", t.n = 1920 * 1080, t.block = block;
        timing.tables.push_back({t, false, "results.json"});
    }
    EXPECT_EQ(default_table(timing, "image", "float"), 1);
    EXPECT_NE(size_label_of(timing.tables[0].table).find("group 4×4"), std::string::npos);
    EXPECT_EQ(size_label_of(timing.tables[1].table).find("group"), std::string::npos);
}

// ... and on the whole ladder: matmul's file holds 1024^3 and 4096^3 with
// every row (here v1, v2, cuBLAS) and 8192^3 with the BF16 rows alone (v14,
// cuBLAS). Largest n first would open on 8192^3, where v1 and v2 are missing;
// the table with the most rows, then the largest n, is 4096^3: index 1.
TEST(ViewerModel, TheTimePanelOpensOnTheLargestSizeThatHoldsTheWholeLadder)
{
    Timing timing;
    auto table = [](std::size_t n, std::vector<std::string> versions) {
        BenchTable t;
        t.lab = "matmul", t.type = "float", t.n = n;
        for (std::string& v : versions) {
            BenchRow r;
            r.version = std::move(v);
            t.rows.push_back(r);
        }
        return t;
    };
    timing.tables.push_back({table(1024, {"v1", "v2", "cuBLAS"}), false, "results.json"});
    timing.tables.push_back({table(4096, {"v1", "v2", "cuBLAS"}), false, "results.json"});
    timing.tables.push_back({table(8192, {"v14", "cuBLAS"}), false, "results.json"});
    EXPECT_EQ(default_table(timing, "matmul", "float"), 1);
}

TEST(ViewerModel, KeysActOnTheState)
{
    App app;
    select_on_emulator(app, "reduction", "v2");
    set_step(app, 0);
    on_key(app, Key::Right);
    on_key(app, Key::Right);
    EXPECT_EQ(app.sel.step, 2u);
    on_key(app, Key::Left);
    EXPECT_EQ(app.sel.step, 1u);
    on_key(app, Key::Down);
    EXPECT_STREQ(current_version(app).id, "v3");
    EXPECT_EQ(app.sel.step, 1u);  // the same step of the next version, to compare
    on_key(app, Key::Up);
    on_key(app, Key::Up);
    on_key(app, Key::Up);  // stops at v1
    EXPECT_STREQ(current_version(app).id, "v1");
    for (int i = 0; i < 50; ++i) on_key(app, Key::Right);
    EXPECT_EQ(app.sel.step, step_count(app) - 1);  // stops at the last step
    on_key(app, Key::F);
    EXPECT_TRUE(app.presenter);
    on_key(app, Key::Escape);
    EXPECT_FALSE(app.presenter);
    EXPECT_FALSE(app.quit);
    on_key(app, Key::Escape);
    EXPECT_TRUE(app.quit);
}

// W switches the warp width and re-traces: reduction v1 at block 256 has 8
// warps of 32 lanes, or 4 of 64, and the width is part of the trace's key; C
// turns the side-by-side comparison on and off, tracing the other width too.
TEST(ViewerModel, WSwitchesTheWarpWidthAndCCompares)
{
    App app;
    select_on_emulator(app, "reduction", "v1");
    ASSERT_NE(current_run(app), nullptr);
    EXPECT_EQ(current_run(app)->block.warp_size, 32u);
    EXPECT_EQ(current_run(app)->steps[0].active_warps, 8u);
    on_key(app, Key::W);
    EXPECT_EQ(app.sel.warp_width, 64u);
    EXPECT_EQ(trace_key(app, app.sel.version).warp_width, 64u);
    ASSERT_NE(current_run(app), nullptr);
    EXPECT_EQ(current_run(app)->block.warp_size, 64u);
    EXPECT_EQ(current_run(app)->steps[0].active_warps, 4u);
    EXPECT_NE(current_run(app)->result.backend.find("emulated 64-wide wavefront"), std::string::npos);
    on_key(app, Key::C);
    EXPECT_TRUE(app.compare_widths);
    const TraceSlot& narrow = trace_at_width(app, app.sel.version, 32);
    ASSERT_TRUE(narrow.run.has_value());
    EXPECT_EQ(narrow.run->block.warp_size, 32u);
    on_key(app, Key::W);
    on_key(app, Key::C);
    EXPECT_EQ(app.sel.warp_width, 32u);
    EXPECT_FALSE(app.compare_widths);
    // Asking for 64 on the GPU is refused in the window, in one line.
    Selection s = app.sel;
    s.backend = BackendChoice::Gpu;
    s.warp_width = 64;
    select_settings(app, s);
    EXPECT_EQ(current_run(app), nullptr);
    EXPECT_NE(current_trace(app).error.find("runs on the emulator only"), std::string::npos) << current_trace(app).error;
}

// A trace whose records reached the emulator's cap says so in the status
// line, as the CLI does, and where it ends; a whole one says nothing. The
// cap's figure is the emulator's default, 384 << 20 bytes: 384 MiB. Reduction
// v1 at its default n has 10 steps (0 to 9; the CLI's table), so a trace cut
// after its whole steps ends after step 9.
TEST(ViewerModel, ACutTraceSaysSoInTheStatusLine)
{
    App app;
    select_on_emulator(app, "reduction", "v1");
    ASSERT_NE(current_run(app), nullptr);
    EXPECT_EQ(warning_text(app), "");
    TracedRun& run = *app.traces.at(trace_key(app, app.sel.version)).run;
    ASSERT_EQ(run.steps.size(), 10u);
    run.result.records_cut = true;
    run.block.end = wl::trace::TraceEnd::AfterLastStep;
    EXPECT_NE(warning_text(app).find(records_cut_note(run)), std::string::npos) << warning_text(app);
    EXPECT_NE(records_cut_note(run).find("ends after step 9"), std::string::npos) << records_cut_note(run);
    EXPECT_NE(records_cut_note(run).find("cap (384 MiB of records"), std::string::npos) << records_cut_note(run);
}

// On the desktop another version's totals (the metrics panel's and the time
// chart's rows) are run at once but keep no whole trace: each may hold the
// analysis's 256 MiB, and every version's at once would not fit in memory.
// The version on screen keeps its whole trace, and its totals are that trace's.
TEST(ViewerModel, AnotherVersionsTotalsKeepNoWholeTrace)
{
    App app;
    select_on_emulator(app, "reduction", "v1");
    ASSERT_NE(current_run(app), nullptr);
    const TotalsSlot own = totals_of(app, app.sel.version);
    ASSERT_TRUE(own.totals.has_value());
    EXPECT_EQ(own.totals->steps, current_run(app)->totals.steps);
    EXPECT_EQ(app.totals.count(trace_key(app, app.sel.version)), 0u);
    const std::size_t v3 = 2;  // reduction's v1, v2, v3
    ASSERT_EQ(current_lab(app).versions[v3].id, "v3");
    const TotalsSlot other = totals_of(app, v3);
    ASSERT_TRUE(other.totals.has_value()) << other.error;
    EXPECT_GT(other.totals->steps, 0u);
    EXPECT_EQ(app.traces.count(trace_key(app, v3)), 0u);
    EXPECT_EQ(app.totals.count(trace_key(app, v3)), 1u);
}

// The size is part of what a trace is run with: a new n is a new trace (its
// own key, its own run), and another lab starts from its own default again.
// v10's path comes with the run and through its JSON document (the browser's
// Worker sends that): at n = 16388 ints, 4097 int4 at four a thread of 1024
// need 2 blocks, no ring (0 pieces of 32 KB an SM).
TEST(ViewerModel, TheSizeMakesItsOwnTraceAndThePathTravels)
{
    App app;
    select_on_emulator(app, "reduction", "v10");
    const TraceKey first = trace_key(app, app.sel.version);
    EXPECT_EQ(first.n, 4096u);
    Selection s = app.sel;
    s.n = 16388;
    select_settings(app, s);
    EXPECT_EQ(trace_key(app, app.sel.version).n, 16388u);
    EXPECT_NE(trace_key(app, app.sel.version), first);
    const TracedRun* run = current_run(app);
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->result.path, "gives no ring here (under 32 pieces an SM): rounds of four loads a thread, as v9's, 2 blocks");
    RunRequest req;
    req.version = "v10", req.n = 16388, req.block = 1024, req.backend = BackendChoice::Cpu;
    const TracedRun back = traced_run_from_json(trace_document(current_lab(app), req, *run), run_extras(*run));
    EXPECT_EQ(back.result.path, run->result.path);
    select_version(app, 2);  // v3: one launch, no path
    ASSERT_NE(current_run(app), nullptr);
    EXPECT_EQ(current_run(app)->result.path, "");
    select_lab(app, 0);
    EXPECT_EQ(trace_key(app, app.sel.version).n, 4096u);
}

// Play advances one step per 1/speed seconds and stops at the last step.
TEST(ViewerModel, PlayStepsThroughAndStops)
{
    App app;
    select_on_emulator(app, "reduction", "v3");
    set_step(app, 0);
    app.play.steps_per_second = 2;
    toggle_play(app);
    tick(app, 0.6);
    EXPECT_EQ(app.sel.step, 1u);
    for (int i = 0; i < 100; ++i) tick(app, 0.6);
    EXPECT_EQ(app.sel.step, step_count(app) - 1);
    EXPECT_FALSE(app.play.playing);
}

// A hand-made block of 100 threads at warp width 64 (AMD's wavefront): thread
// t loads in[t], and threads 40..63 and 70..99 store out[t]. The grid has
// rows of 64: warp 0 = threads 0..63, warp 1 = threads 64..99 (lanes 0..35;
// 36..63 absent). Both warps work in full (the load), both diverge (the store
// by some of their lanes). Lane 5 of warp 1 is thread 69: it loaded in[69] at
// byte 276 and did not store. The store's sectors: warp 0's lanes 40..63 write
// bytes 160..255, sectors 5, 6, 7; lane 63 touches the last of them.
TEST(ViewerModel, RowsOfTheTracesWarpWidth)
{
    std::vector<wl::trace::LaneRecord> records;
    std::map<std::uint32_t, std::uint32_t> seq;
    const auto access = [&](std::uint32_t t, std::uint32_t line, wl::trace::Kind kind) {
        records.push_back({.thread = t, .seq = seq[t]++, .line = line, .kind = kind, .space = wl::trace::Space::Global, .size = 4,
                           .offset = 4 * t});
    };
    for (std::uint32_t t = 0; t < 100; ++t) access(t, 1, wl::trace::Kind::Load);
    for (std::uint32_t t = 0; t < 100; ++t)
        if ((t >= 40 && t < 64) || t >= 70) access(t, 2, wl::trace::Kind::Store);
    const BlockTrace b = wl::trace::group_block(0, 100, records, 64);

    const BlockActivity a = block_activity(b, 0);
    EXPECT_EQ(a.warps, 2u);
    EXPECT_EQ(a.warp_size, 64u);
    ASSERT_EQ(a.lanes.size(), 128u);
    EXPECT_EQ(std::count(a.lanes.begin(), a.lanes.end(), LaneState::Active), 100);
    EXPECT_EQ(std::count(a.lanes.begin(), a.lanes.end(), LaneState::Absent), 28);
    EXPECT_EQ(a.partial, (std::vector<std::uint8_t>{1, 1}));

    const std::vector<Access> t69 = thread_accesses(b, 0, 69);
    ASSERT_EQ(t69.size(), 1u);
    EXPECT_EQ(t69[0].kind, wl::trace::Kind::Load);
    EXPECT_EQ(t69[0].offset, 276u);

    const auto store = std::find_if(b.events.begin(), b.events.end(),
                                    [](const WarpEvent& e) { return e.warp == 0 && e.kind == wl::trace::Kind::Store; });
    ASSERT_NE(store, b.events.end());
    const SectorView v = sector_view(*store);
    EXPECT_EQ(v.sectors, (std::vector<std::uint64_t>{5, 6, 7}));
    EXPECT_EQ(v.lane_sectors[63], (std::vector<std::uint32_t>{2}));
    EXPECT_TRUE(v.lane_sectors[39].empty());
}

// Without --size the window opens at 1600x900 where that fits, else on as
// much of the display's usable area (its size less the task bars) as there is.
TEST(ViewerWindow, OpensAtASizeThatFitsTheDisplay)
{
    // A 1024x768 projector with a 40 px task bar: the whole usable 1024x728, not a window partly off it.
    EXPECT_EQ(fitting_window({1600, 900}, {1024, 728}), (WindowSize{1024, 728}));
    // A 1920x1080 screen holds 1600x900 as it is.
    EXPECT_EQ(fitting_window({1600, 900}, {1920, 1040}), (WindowSize{1600, 900}));
    // A 1280x1024 screen: only the width shrinks.
    EXPECT_EQ(fitting_window({1600, 900}, {1280, 1024}), (WindowSize{1280, 900}));
    // A display that says nothing of its area: as asked.
    EXPECT_EQ(fitting_window({1600, 900}, {0, 0}), (WindowSize{1600, 900}));
}

// D pairs the version with the one before it, and again shows the panels
// back. The barrier switch reruns the selected version in a trace of its own:
// reduction v5 under lockstep without line 28's two __syncwarp() has 14 steps
// (line 28's read and write and line 29's read fall in one; the derivation is
// tests/cli/without_barrier.cmake's), the kernel's own trace keeps its 16, the
// status line says which is shown, and other versions run as written. The
// switch turns back on, and a version change leaves it on.
TEST(ViewerModel, DComparesVersionsAndTheBarrierSwitchKeepsTheKernelsTrace)
{
    App app;
    select_on_emulator(app, "reduction", "v5");
    on_key(app, Key::D);
    EXPECT_TRUE(app.compare_versions);
    on_key(app, Key::D);
    EXPECT_FALSE(app.compare_versions);
    Selection s = app.sel;
    s.schedule = wl::emu::Schedule::Lockstep;
    select_settings(app, s);
    const TraceKey written = trace_key(app, app.sel.version);
    ASSERT_EQ(step_count(app), 16u);
    toggle_barrier(app, 28);
    EXPECT_EQ(trace_key(app, app.sel.version).without_barrier, 28u);
    EXPECT_NE(trace_key(app, app.sel.version), written);
    ASSERT_NE(current_run(app), nullptr) << current_trace(app).error;
    EXPECT_TRUE(current_run(app)->result.ok);
    EXPECT_EQ(step_count(app), 14u);
    ASSERT_TRUE(trace_as_written(app, app.sel.version).run);
    EXPECT_EQ(trace_as_written(app, app.sel.version).run->steps.size(), 16u);
    EXPECT_EQ(app.traces.at(written).run->steps.size(), 16u);
    EXPECT_NE(status_text(app).find("what if the barrier at line 28 of 05_unroll_last_warp.cuh were gone"), std::string::npos);
    EXPECT_EQ(trace_key(app, app.sel.version - 1).without_barrier, 0u);
    toggle_barrier(app, 28);
    EXPECT_EQ(trace_key(app, app.sel.version), written);
    EXPECT_EQ(status_text(app).find("what if"), std::string::npos);
    toggle_barrier(app, 28);
    on_key(app, Key::Up);
    EXPECT_EQ(app.sel.without_barrier, 0u);
}

// The compare panel's differing steps are found once for a pair of traces,
// and again when either is another. Reduction v2 -> v3 differ from step 1
// (shared wavefronts 24/12 -> 12/12, 2-way -> 1-way: the screenshots'
// VersionsSideBySideColourWhatDiffers); v5 -> v6 make the same accesses (v6
// unrolls v5's loop): none differs. Each answer equals
// wl::trace::differing_steps found afresh: after a version change and back,
// and after v3's slot is given v6's trace (the same keys, another trace).
TEST(ViewerModel, DifferingStepsFollowTheTracesCompared)
{
    App app;
    select_on_emulator(app, "reduction", "v3");
    const std::size_t v3 = app.sel.version;
    // Both traces, or a failure naming why not.
    const auto both = [&]() -> std::optional<std::pair<const TraceSlot*, const TraceSlot*>> {
        const TraceSlot &before = trace_of(app, *compared_version(app)), &after = current_trace(app);
        if (before.run && after.run) return std::pair{&before, &after};
        ADD_FAILURE() << "no trace: " << before.error << after.error;
        return std::nullopt;
    };
    const auto cached = [&] { return both() ? differing_steps(app, *both()->first, *both()->second) : std::vector<bool>{}; };
    const auto afresh = [&] {
        return both() ? wl::trace::differing_steps(both()->first->run->block, both()->second->run->block) : std::vector<bool>{};
    };
    const std::vector<bool> v2_v3 = cached();
    EXPECT_EQ(v2_v3, afresh());
    EXPECT_EQ(wl::trace::first_differing_step(v2_v3), 1u);
    select_on_emulator(app, "reduction", "v6");  // beside v5
    const std::size_t v6 = app.sel.version;
    EXPECT_EQ(cached(), afresh());
    EXPECT_EQ(wl::trace::first_differing_step(cached()), std::nullopt);
    select_on_emulator(app, "reduction", "v3");
    EXPECT_EQ(cached(), v2_v3);
    place_trace(app, v3, trace_of(app, v6));
    EXPECT_EQ(cached(), afresh());
    EXPECT_NE(cached(), v2_v3);
}

// The lines the switch is offered on: calls of __syncthreads(), __syncwarp()
// and a cooperative group's sync(), not a comment that names one, nor an
// asynchronous copy's call.
TEST(ViewerModel, LinesThatCallABarrier)
{
    EXPECT_TRUE(calls_barrier("    __syncthreads();"));
    EXPECT_TRUE(calls_barrier("    v += sdata[tid + 8];  __syncwarp(); sdata[tid] = v; __syncwarp();"));
    EXPECT_TRUE(calls_barrier("    __syncwarp(0xffffffff);"));
    EXPECT_TRUE(calls_barrier("    block.sync();"));
    EXPECT_FALSE(calls_barrier("    sdata[tid] = sum;  // no __syncthreads() needed: one warp"));
    EXPECT_FALSE(calls_barrier("    cuda::memcpy_async(block, dst, src, bytes, barrier);"));
    EXPECT_FALSE(calls_barrier(""));
}

}  // namespace
}  // namespace warplab::viewer
