// The grader's own parts, with at most one small kernel: the child-process
// runner (time limit, signals, output), turning result lines into checks, the
// Gradescope and JUnit reports, and the checks' traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "build.h"
#include "catalog.h"
#include "exercises/exercises.h"
#include "grader.h"
#include "harness/harness.h"
#include "process.h"
#include "report.h"

namespace wl::grade {
namespace {

TEST(Process, CapturesOutputAndExitCode)
{
    const ProcessResult r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10, "");
    EXPECT_TRUE(r.started);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.out, "out\n");
    EXPECT_EQ(r.err, "err\n");
}

TEST(Process, StopsAChildAtTheLimit)
{
    // A shell that starts a grandchild and waits: the whole group goes at 0.5 s.
    const ProcessResult r = run_process({"sh", "-c", "sleep 30 & wait"}, 0.5, "");
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(r.seconds, 5.0);
    EXPECT_EQ(describe_end(r, 0.5), "time limit exceeded: stopped after 0.5 s");
}

TEST(Process, StopsAChildThatClosedItsOutput)
{
    const ProcessResult r = run_process({"sh", "-c", "exec >&- 2>&-; sleep 30"}, 0.5, "");
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(r.seconds, 5.0);
}

TEST(Process, ReportsTheSignalThatEndedIt)
{
    const ProcessResult r = run_process({"sh", "-c", "kill -SEGV $$"}, 10, "");
    EXPECT_EQ(r.signal, 11);
    EXPECT_NE(describe_end(r, 10).find("signal 11"), std::string::npos);
}

TEST(Process, SaysWhenTheProgramCannotRun)
{
    const ProcessResult r = run_process({"/no/such/program"}, 10, "");
    EXPECT_EQ(r.exit_code, 127);
    EXPECT_NE(r.err.find("cannot run /no/such/program"), std::string::npos);
}

TEST(Process, KeepsTheTailOfLongOutput)
{
    const ProcessResult r = run_process({"sh", "-c", "yes 0123456789 | head -c 100000; echo END"}, 10, "", 1000);
    EXPECT_EQ(r.out.size(), 1000u);
    EXPECT_EQ(r.out.substr(r.out.size() - 4), "END\n");
}

ExerciseResult e4_result() { return ExerciseResult{find_exercise("E4"), {}, {}, {}, 0, 0, false, {}}; }

TEST(Collect, ReportedChecksKeepTheirVerdictAndPoints)
{
    // E4: correct 4 points, shuffle_tail 4, no_race 2.
    ExerciseResult ex = e4_result();
    collect_checks(ex,
                   R"({"check":"correct","passed":true,"graded":true,"measured":"right","expected":"","where":"","hint":""})"
                   "\nnot json: student output\n"
                   R"({"check":"shuffle_tail","passed":false,"graded":true,"measured":"step 4","expected":"none","where":"step 4, kernel.cuh:9","hint":""})"
                   "\n"
                   R"({"check":"no_race","passed":true,"graded":true,"measured":"ok","expected":"","where":"","hint":""})",
                   "");
    ASSERT_EQ(ex.checks.size(), 3u);
    EXPECT_EQ(ex.points(), 6u);
    EXPECT_EQ(ex.max_points(), 10u);
    EXPECT_EQ(ex.checks[1].where, "step 4, kernel.cuh:9");
    EXPECT_FALSE(ex.checks[1].hint.empty()) << "a failure without a hint gets the catalog's";
}

TEST(Collect, UnreportedChecksFailWithHowTheRunEnded)
{
    ExerciseResult ex = e4_result();
    collect_checks(ex,
                   R"({"check":"correct","passed":true,"graded":true,"measured":"right","expected":"","where":"","hint":""})",
                   "time limit exceeded: stopped after 10 s\nits last words:\n...");
    EXPECT_EQ(ex.points(), 4u);
    EXPECT_EQ(ex.checks[1].measured, "not run: time limit exceeded: stopped after 10 s");
    EXPECT_EQ(ex.checks[2].measured, "not run: time limit exceeded: stopped after 10 s");
}

GradeReport sample_report()
{
    ExerciseResult ex = e4_result();
    collect_checks(ex,
                   R"({"check":"correct","passed":true,"graded":true,"measured":"right <&>","expected":"","where":"","hint":""})"
                   "\n"
                   R"({"check":"shuffle_tail","passed":false,"graded":true,"measured":"a \"quoted\" <step>","expected":"none","where":"","hint":""})",
                   "");
    return GradeReport{"/tmp/x", "cpu", 1234, {ex}};
}

TEST(Reports, GradescopeHasEveryCheckWithItsScore)
{
    const nlohmann::json j = gradescope_results(sample_report());
    EXPECT_EQ(j["score"], 4);
    ASSERT_EQ(j["tests"].size(), 3u);
    EXPECT_EQ(j["tests"][0]["status"], "passed");
    EXPECT_EQ(j["tests"][0]["score"], 4);
    EXPECT_EQ(j["tests"][0]["max_score"], 4);
    EXPECT_EQ(j["tests"][1]["status"], "failed");
    EXPECT_EQ(j["tests"][1]["score"], 0);
    EXPECT_EQ(j["tests"][1]["name"], "E4 shuffle_tail: " + std::string(find_exercise("E4")->checks[1].title));
    EXPECT_NE(j["tests"][1]["output"].get<std::string>().find("measured: a \"quoted\" <step>"), std::string::npos);
    EXPECT_NE(j["output"].get<std::string>().find("random cases from seed 1234"), std::string::npos)
        << "the seed is printed, so that --seed 1234 repeats the run";
}

TEST(Reports, JUnitEscapesAndCountsFailures)
{
    const std::string xml = junit_xml(sample_report());
    EXPECT_NE(xml.find("<testsuites name=\"warplab grade\" tests=\"3\" failures=\"2\""), std::string::npos);
    EXPECT_NE(xml.find("message=\"a &quot;quoted&quot; &lt;step&gt;\""), std::string::npos);
    EXPECT_EQ(xml.find("<step>"), std::string::npos);
    EXPECT_EQ(xml_escape(std::string("a\x01" "b&")), "ab&amp;");
}

// Cases: a right one, a wrong one (the first: the verdict's), a fault; all
// run, so 1 of 3 is right, and both failures are listed with their input.
TEST(Cases, EveryCaseRunsAndEachWrongOneIsListed)
{
    unsigned ran = 0;
    const std::vector<Case> cases{
        {"n = 1", [&]() -> Finding { ++ran; return std::nullopt; }},
        {"n = 33", [&]() -> Finding { ++ran; return fail("your kernel's out[32] was 0; the right out[32] is 5", "out[32] = 5"); }, "a case hint"},
        {"n = 257", [&]() -> Finding { ++ran; throw std::runtime_error("boom"); }},
    };
    const Verdict v = run_cases(cases, "right sums");
    EXPECT_EQ(ran, 3u) << "a wrong case does not stop the others";
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.measured, "case n = 33: your kernel's out[32] was 0; the right out[32] is 5");
    EXPECT_EQ(v.hint, "a case hint");
    EXPECT_EQ(v.cases, 3u);
    EXPECT_EQ(v.right_cases(), 1u);
    ASSERT_EQ(v.failed_cases.size(), 2u);
    EXPECT_EQ(v.failed_cases[0].name, "n = 33");
    EXPECT_EQ(v.failed_cases[0].expected, "out[32] = 5");
    EXPECT_EQ(v.failed_cases[1].name, "n = 257");
    EXPECT_EQ(v.failed_cases[1].measured, "boom");
}

// A case that loops endlessly (the emulator's instruction budget) would loop again
// in every later case, past the grader's time limit: the rest are not run.
TEST(Cases, AnEndlessLoopStopsTheRest)
{
    emu::Fault endless;
    endless.what = "the kernel did not finish within 2000000 instructions per thread: an endless loop?";
    unsigned ran = 0;
    const std::vector<Case> cases{
        {"n = 1", [&]() -> Finding { ++ran; throw emu::KernelFault(endless); }},
        {"n = 33", [&]() -> Finding { ++ran; return std::nullopt; }, {}, true},
    };
    const Verdict v = run_cases(cases, "right sums");
    EXPECT_EQ(ran, 1u);
    EXPECT_EQ(v.cases, 1u);
    EXPECT_EQ(v.cases_not_run, "1 more not run: it loops endlessly");
    EXPECT_EQ(v.main_cases, 1u);
    EXPECT_EQ(v.main_case_wrong, "n = 33 (not run)") << "a main case not run is not a right one";
    EXPECT_EQ(v.right_cases(), 0u);
    EXPECT_NE(v.measured.find("case n = 1: the kernel faulted"), std::string::npos) << v.measured;
}

// The credit rule (docs/grading.md): a property is graded once every main
// case of `correct` is right, whatever its edge cases gave. E1's checks, with
// `correct` from run_cases over a main case (whole blocks) and an edge case,
// and one property whose measure counts its calls; the lines the child writes.
struct CreditRun {
    unsigned measured = 0;           // times the property's measure ran
    nlohmann::json correct, property;  // their result lines
};

CreditRun grade_e1(bool main_right, bool edge_right, bool main_marked = true)
{
    const auto right_if = [](bool right) {
        return [right]() -> Finding {
            if (right) return std::nullopt;
            return fail("your kernel's max was 1; the right max is 2", "the max 2");
        };
    };
    const std::vector<Case> cases{{"seeded random: n = 4096", right_if(main_right), {}, main_marked},
                                  {"odd size: n = 33", right_if(edge_right)}};
    CreditRun r;
    std::FILE* out = std::tmpfile();
    Harness h(*find_exercise("E1"), "", "/nonexistent/E1_max_no_divergence/kernel.cuh", 1, out);
    h.check(kCorrect, [&] { return run_cases(cases, "right max"); });
    h.check("whole_warps", [&] {
        ++r.measured;
        return pass("no partially-active warp");
    });
    std::rewind(out);
    std::string lines;
    for (int c; (c = std::fgetc(out)) != EOF;) lines += static_cast<char>(c);
    std::fclose(out);
    const std::size_t end = lines.find('\n');
    r.correct = nlohmann::json::parse(lines.substr(0, end));
    r.property = nlohmann::json::parse(lines.substr(end + 1));
    return r;
}

TEST(Credit, AnEdgeCaseWrongKeepsTheProperty)
{
    const CreditRun r = grade_e1(true, false);
    EXPECT_EQ(r.measured, 1u);
    EXPECT_FALSE(r.correct["passed"]);
    EXPECT_TRUE(r.property["graded"]);
    EXPECT_TRUE(r.property["passed"]);
    EXPECT_EQ(r.property["measured"],
              "no partially-active warp; measured on a right result, while 1 of the 2 cases of 'correct' are wrong");
}

// Right only on the small odd case: the exercise's work at whole blocks is not
// done, so the property is neither measured nor credited.
TEST(Credit, AMainCaseWrongCreditsNoProperty)
{
    const CreditRun r = grade_e1(false, true);
    EXPECT_EQ(r.measured, 0u);
    EXPECT_FALSE(r.property["graded"]);
    EXPECT_FALSE(r.property["passed"]);
    EXPECT_EQ(r.property["measured"],
              "not graded: the main case of check 'correct' (seeded random: n = 4096: whole blocks, no edge) is wrong, "
              "though 1 other case is right, and a property is credited only on a right result");
}

TEST(Credit, NoRightCaseCreditsNoProperty)
{
    const CreditRun r = grade_e1(false, false);
    EXPECT_EQ(r.measured, 0u);
    EXPECT_FALSE(r.property["graded"]);
    EXPECT_EQ(r.property["measured"],
              "not graded: no case of check 'correct' has a right result, and a property is credited only on a right "
              "result");
}

TEST(Credit, ACaseListWithoutAMainCaseIsAGraderBug)
{
    EXPECT_THROW(grade_e1(true, true, false), std::logic_error);
}

// E4 with `correct` wrong on 2 of 7 cases run (1 more not run) and
// shuffle_tail credited: 0 + 4 of 10. Each report names the wrong cases, with
// the first wrong element.
TEST(Reports, WrongCasesAreNamedInEveryReport)
{
    ExerciseResult ex = e4_result();
    collect_checks(ex,
                   R"({"check":"correct","passed":false,"graded":true,"measured":"case n = 33: x","expected":"y","where":"","hint":"",)"
                   R"("cases":7,"cases_not_run":"1 more not run: it loops endlessly","failed_cases":[{"case":"n = 33, seed 5","measured":"your kernel's sum was 1; the right sum is 2 <&>","expected":"2"},)"
                   R"({"case":"n = 1, seed 3","measured":"the kernel faulted: out-of-bounds load","expected":"no fault"}]})"
                   "\n"
                   R"({"check":"shuffle_tail","passed":true,"graded":true,"measured":"5 rounds","expected":"","where":"","hint":""})",
                   "");
    ASSERT_EQ(ex.checks[0].failed_cases.size(), 2u);
    EXPECT_EQ(ex.checks[0].cases, 7u);
    EXPECT_EQ(ex.points(), 4u);
    const std::string heading = "wrong on 2 of 7 cases (right on the other 5); 1 more not run: it loops endlessly:";
    const std::string text = text_exercise(ex);
    EXPECT_NE(text.find(heading), std::string::npos) << text;
    EXPECT_NE(text.find("n = 33, seed 5: your kernel's sum was 1; the right sum is 2 <&>"), std::string::npos) << text;
    EXPECT_NE(text.find("n = 1, seed 3: the kernel faulted: out-of-bounds load"), std::string::npos) << text;
    const GradeReport r{"/tmp/x", "cpu", 1234, {ex}};
    const std::string gradescope = gradescope_results(r)["tests"][0]["output"].get<std::string>();
    EXPECT_NE(gradescope.find(heading), std::string::npos) << gradescope;
    EXPECT_NE(gradescope.find("n = 1, seed 3: the kernel faulted"), std::string::npos) << gradescope;
    const std::string xml = junit_xml(r);
    EXPECT_NE(xml.find(heading), std::string::npos);
    EXPECT_NE(xml.find("the right sum is 2 &lt;&amp;&gt;"), std::string::npos);
}

// A full warp of 4-byte shared accesses, lane l at word word_of(l).
trace::WarpEvent warp_access(const std::function<std::uint64_t(unsigned)>& word_of)
{
    trace::WarpEvent e;
    e.space = trace::Space::Shared;
    e.kind = trace::Kind::Load;
    e.size = 4;
    e.mask = 0xffffffffu;
    for (unsigned l = 0; l < 32; ++l) e.offset[l] = 4 * word_of(l);
    return e;
}

// A tile column read, lane l on row l: at a row of 34 words (TILE + 2) bank
// (34l + c) mod 32 = (2l + c) mod 32 repeats after 16 lanes: gcd(34, 32) = 2,
// 2-way; at 33 (TILE + 1) gcd = 1, none; at 32, 32-way. A swizzle's lanes are
// not evenly apart: nothing to derive.
TEST(Hints, TheNWayOfEvenlySpacedLanesIsTheGcdOfTheirPitch)
{
    const auto even = strided_access(warp_access([](unsigned l) { return 34 * l + 5; }));
    ASSERT_TRUE(even);
    EXPECT_EQ(even->pitch, 34u);
    EXPECT_EQ(even->ways, 2u);
    EXPECT_EQ(strided_access(warp_access([](unsigned l) { return 33 * l; }))->ways, 1u);
    EXPECT_EQ(strided_access(warp_access([](unsigned l) { return 32 * l; }))->ways, 32u);
    EXPECT_EQ(strided_access(warp_access([](unsigned l) { return 8 * l + 3; }))->ways, 8u);
    EXPECT_FALSE(strided_access(warp_access([](unsigned l) { return 32 * l + (l ^ 5u); })));
    EXPECT_EQ(bank_formula(34, "r", "c"), "(r*34 + c) mod 32 = (2r + c) mod 32");
    EXPECT_EQ(bank_formula(33, "r", "c"), "(r*33 + c) mod 32 = (r + c) mod 32");
    EXPECT_EQ(bank_formula(32, "r", "c"), "(r*32 + c) mod 32 = c mod 32");
    EXPECT_EQ(bank_formula(8, "l", "k"), "(l*8 + k) mod 32");
}

// The explanation a conflicted strided access gets, in any exercise: 32 / g
// lanes apart share a bank (34: g = 2, lanes l and l + 16; 32: all 32 in one).
TEST(Hints, AStridedConflictIsExplainedFromItsPitch)
{
    EXPECT_EQ(pitch_explanation(warp_access([](unsigned l) { return 34 * l + 5; }),
                                {.lane = "row", .index = "r", .word = "c", .pitch_is = "TILE + 2"}),
              "the lanes of this load are 34 words apart (TILE + 2): row r's word is in bank (r*34 + c) mod 32 = "
              "(2r + c) mod 32, so rows r and r + 16 share a bank: 2 rows a bank, 2-way");
    EXPECT_EQ(pitch_explanation(warp_access([](unsigned l) { return 32 * l; })),
              "the lanes of this load are 32 words apart: lane l's word is in bank (l*32 + c) mod 32 = c mod 32, so "
              "all 32 lanes share one bank: 32 lanes a bank, 32-way");
    EXPECT_EQ(pitch_explanation(warp_access([](unsigned l) { return 33 * l; })), "") << "conflict-free: nothing to explain";
    EXPECT_EQ(pitch_explanation(warp_access([](unsigned l) { return 32 * l + (l ^ 5u); })), "")
        << "a swizzle's lanes are not evenly apart";
}

// The checks' traces carry the shared arrays in the types the student's file
// declares, as the CLI's and the viewer's do. PTX keeps only bytes, so the
// trace alone guesses each array's element from its narrowest access: pairs,
// written a component (4 bytes) at a time, would be 128 elements of 4 bytes;
// declared float2 it is 64 of 8. stamp, 2 unsigned long long written whole,
// is 2 of 8 either way, now with its type. cells' struct has no size the text
// gives: it stays as traced (32 Cells of two ints, 64 of 4), with no type.
TEST(Trace, SharedArraysInTheirDeclaredTypes)
{
    if (ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc (the CUDA toolkit)";
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("warplab_grader_trace_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string kernel_file = (dir / "kernel.cuh").string();
    std::ofstream(kernel_file) << R"src(struct Cell { int count; int sum; };

__global__ void staged(const float* in, float* out)
{
    __shared__ float2 pairs[64];
    __shared__ unsigned long long stamp[2];
    __shared__ Cell cells[32];
    const unsigned t = threadIdx.x;
    pairs[t].x = in[2 * t];
    pairs[t].y = in[2 * t + 1];
    if (t < 2) stamp[t] = 1000 + t;
    if (t < 32) cells[t].count = int(t), cells[t].sum = 0;
    __syncthreads();
    out[t] = pairs[63 - t].x + pairs[63 - t].y + float(stamp[t % 2]) + float(cells[t % 32].count);
}
)src";
    // As the grader builds it: a .cu that includes the student's kernel.cuh.
    const ptx::CompiledPtx compiled = ptx::compile_source("#include \"" + kernel_file + "\"\n", "staged_calls.cu");
    const ptx::Module module = ptx::Module::parse(compiled.text, kernel_file);
    std::FILE* out = std::tmpfile();
    const Harness h(*find_exercise("E1"), module, kernel_file, 1, out);
    std::filesystem::remove_all(dir);
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, 1, true);
    std::vector<float> in(128);
    for (unsigned i = 0; i < in.size(); ++i) in[i] = float(i);
    float* d_out = emu.alloc<float>(64);
    launch(emu, h, "staged", dim3(1), dim3(64), to_device(emu, in), d_out);
    const std::vector<trace::LaneRecord> records = emu.take_records();
    std::fclose(out);
    // out[0] = in[126] + in[127] + 1000 + 0 = 1253: the run the trace is of is right.
    ASSERT_EQ(to_host(emu, d_out, 1)[0], 1253.0f);
    const auto array = [](const BlockView& v, const std::string& name) {
        for (const trace::SharedArrayInfo& a : v.block.shared_arrays)
            if (a.name == name) return a;
        ADD_FAILURE() << "no shared array " << name;
        return trace::SharedArrayInfo{};
    };
    const BlockView typed = view_block(h, records, 64);
    EXPECT_EQ(array(typed, "pairs").type, "float2");
    EXPECT_EQ(array(typed, "pairs").elem_size, 8u);
    EXPECT_EQ(array(typed, "pairs").count, 64u);
    EXPECT_EQ(array(typed, "stamp").type, "unsigned long long");
    EXPECT_EQ(array(typed, "stamp").count, 2u);
    EXPECT_EQ(array(typed, "cells").type, "");
    EXPECT_EQ(array(typed, "cells").elem_size * array(typed, "cells").count, 256u);
    // The trace alone, without the file: the guess this replaces.
    const BlockView guessed = trace::analyze_block(records, 0, 64, nullptr, graded_warp_width());
    EXPECT_EQ(array(guessed, "pairs").type, "");
    EXPECT_EQ(array(guessed, "pairs").elem_size, 4u);
}

TEST(Folders, FoundByCatalogNameOrIdPrefix)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "warplab_grader_folders";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "E2_my_own_name");
    std::filesystem::create_directories(dir / "E10_not_e1");
    EXPECT_EQ(find_exercise_folder(dir, *find_exercise("E2")), dir / "E2_my_own_name");
    EXPECT_TRUE(find_exercise_folder(dir, *find_exercise("E1")).empty()) << "E10_ is not E1";
    std::filesystem::remove_all(dir);
}

// The table of checks is generated from the catalog (apps/grader/CMakeLists.txt
// reads each entry's id): every exercise the catalog lists has its checks, in
// the catalog's order, and no more; an id the catalog lacks has none.
TEST(Catalog, GeneratedChecksFollowTheCatalog)
{
    ASSERT_EQ(std::size(kExerciseChecks), std::size(kExercises));
    for (std::size_t i = 0; i < std::size(kExercises); ++i) {
        EXPECT_EQ(kExerciseChecks[i].id, kExercises[i].id);
        EXPECT_NE(checks_of(kExercises[i].id), nullptr) << kExercises[i].id;
    }
    EXPECT_EQ(checks_of("E0"), nullptr);
    EXPECT_EQ(checks_of("E"), nullptr);
    const std::string_view last = std::end(kExercises)[-1].id;  // ids need not be contiguous: one past the last
    EXPECT_EQ(checks_of("E" + std::to_string(std::stoi(std::string(last.substr(1))) + 1)), nullptr);
}

TEST(Build, WithoutNvccSaysSoInOneLine)
{
    Toolchain tc;  // nvcc empty: none found
    try {
        compile_to_ptx(tc, *find_exercise("E1"), "/nowhere/E1_max_no_divergence/kernel.cuh");
        FAIL() << "no error without nvcc";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "grading needs the CUDA toolkit (nvcc) to compile your kernel; none found");
    }
}

TEST(Build, GeneratedSourceIncludesTheKernelAndPinsEachCall)
{
    const std::string src = grader_source(*find_exercise("E3"), "/course/E3_dot/kernel.cuh");
    EXPECT_NE(src.find("#include \"/course/E3_dot/kernel.cuh\""), std::string::npos);
    EXPECT_NE(src.find("void (*grader_calls_dot_partial_256)(const int*, const int*, int*, unsigned) = "
                       "exercise::dot_partial<256>;"),
              std::string::npos);
    EXPECT_NE(src.find("grader_dot_blocks_128(unsigned n, unsigned* blocks)"), std::string::npos);
}

// ---- the parallel shape of a block reduction, on hand-made traces ----

// One shared store by each thread in `writers` at barrier interval `epoch`.
void store(std::vector<trace::LaneRecord>& rs, std::uint32_t epoch, unsigned first, unsigned count)
{
    for (unsigned t = first; t < first + count; ++t) {
        trace::LaneRecord r{};
        r.thread = t;
        r.seq = static_cast<std::uint32_t>(rs.size());
        r.epoch = epoch;
        r.line = 10 + epoch;
        r.kind = trace::Kind::Store;
        r.space = trace::Space::Shared;
        r.size = 4;
        r.offset = 4 * t;
        rs.push_back(r);
    }
}

void shared_loads(std::vector<trace::LaneRecord>& rs, std::uint32_t epoch, unsigned thread, unsigned count)
{
    for (unsigned k = 0; k < count; ++k) {
        trace::LaneRecord r{};
        r.thread = thread;
        r.seq = static_cast<std::uint32_t>(rs.size());
        r.epoch = epoch;
        r.line = 30 + k;  // a site each, as an unrolled loop has
        r.kind = trace::Kind::Load;
        r.space = trace::Space::Shared;
        r.size = 4;
        r.offset = 4 * k;
        rs.push_back(r);
    }
}

TEST(Shape, ATreeOf64ThreadsHasSixHalvingLevels)
{
    // 64 threads store (the load), then 32, 16, 8, 4, 2, 1 write, one interval each.
    std::vector<trace::LaneRecord> rs;
    store(rs, 0, 0, 64);
    for (unsigned s = 32, epoch = 1; s >= 1; s /= 2, ++epoch) store(rs, epoch, 0, s);
    EXPECT_FALSE(reduction_shape(trace::analyze_block(rs, 0, 64), 64));
}

TEST(Shape, OneThreadLoopingOverTheBlockIsNotATree)
{
    // The load, then thread 0 reads the 64 words alone and writes one.
    std::vector<trace::LaneRecord> rs;
    store(rs, 0, 0, 64);
    shared_loads(rs, 1, 0, 64);
    store(rs, 1, 0, 1);
    const Finding f = reduction_shape(trace::analyze_block(rs, 0, 64), 64);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->measured, "threads writing shared memory in each barrier interval of block 0: 64, 1");
}

// A warp stage in shared memory, in one barrier interval: 32 lanes from `first`
// write, then 16, 8, 4, 2, 1 (reduction v5's tail: the first lane writes 6 times).
void warp_tail(std::vector<trace::LaneRecord>& rs, std::uint32_t epoch, unsigned first)
{
    for (unsigned writers = 32; writers > 0; writers /= 2) store(rs, epoch, first, writers);
}

TEST(Shape, AWarpStageAfterTheTreeMayOnlyBeWarp0)
{
    // 256 threads: the load, 128, 64, then a tail in warp 0 (32 writers, halving to 1): right.
    std::vector<trace::LaneRecord> rs;
    store(rs, 0, 0, 256);
    store(rs, 1, 0, 128);
    store(rs, 2, 0, 64);
    warp_tail(rs, 3, 0);
    EXPECT_FALSE(reduction_shape(trace::analyze_block(rs, 0, 256), 256));
    // The same tail done by warp 1 is not the warp stage.
    std::vector<trace::LaneRecord> other;
    store(other, 0, 0, 256);
    store(other, 1, 0, 128);
    store(other, 2, 0, 64);
    warp_tail(other, 3, 32);
    EXPECT_TRUE(reduction_shape(trace::analyze_block(other, 0, 256), 256));
    // Nor is warp 0's level written once, then left to one thread's loop (a tree stopped at 32 values).
    std::vector<trace::LaneRecord> once;
    store(once, 0, 0, 256);
    store(once, 1, 0, 128);
    store(once, 2, 0, 64);
    store(once, 3, 0, 32);
    EXPECT_TRUE(reduction_shape(trace::analyze_block(once, 0, 256), 256));
}

TEST(Shape, AThreadThatReadsTheWholeTailAloneIsCaught)
{
    // Levels right (256, 128, 64, then warp 0's tail), but thread 0 reads 64
    // words in the tail: 3 stores in the tree, 64 loads and 6 stores in the
    // tail, 73 accesses > 4 log2(256) + 4 = 36.
    std::vector<trace::LaneRecord> rs;
    store(rs, 0, 0, 256);
    store(rs, 1, 0, 128);
    store(rs, 2, 0, 64);
    shared_loads(rs, 3, 0, 64);
    warp_tail(rs, 3, 0);
    const Finding f = reduction_shape(trace::analyze_block(rs, 0, 256), 256);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->measured, "thread 0 of block 0 made 73 shared-memory accesses");
}

// One full-warp shuffle by each warp in `warps` at barrier interval `epoch`, collective number `sub`.
void shuffle(std::vector<trace::LaneRecord>& rs, std::uint32_t epoch, std::uint32_t sub, unsigned warps)
{
    for (unsigned t = 0; t < 32 * warps; ++t) {
        trace::LaneRecord r{};
        r.thread = t;
        r.seq = static_cast<std::uint32_t>(rs.size());
        r.epoch = epoch;
        r.sub = sub;
        r.line = 50 + sub;
        r.kind = trace::Kind::Shuffle;
        rs.push_back(r);
    }
}

TEST(Shape, ATreeThatEndsInWarpShufflesIsATree)
{
    // Solved further than asked: 256 store, 128, 64 halve in shared memory;
    // then warp 0 folds 64 -> 32 as it reads and shuffles 5 rounds: 32 -> 1.
    std::vector<trace::LaneRecord> rs;
    store(rs, 0, 0, 256);
    store(rs, 1, 0, 128);
    store(rs, 2, 0, 64);
    for (std::uint32_t sub = 0; sub < 5; ++sub) shuffle(rs, 3, sub, 1);
    EXPECT_FALSE(reduction_shape(trace::analyze_block(rs, 0, 256), 256));
    // With 4 rounds, 2 x 2^4 = 32 < 64 values are folded: the tree is unfinished.
    std::vector<trace::LaneRecord> short_tail;
    store(short_tail, 0, 0, 256);
    store(short_tail, 1, 0, 128);
    store(short_tail, 2, 0, 64);
    for (std::uint32_t sub = 0; sub < 4; ++sub) shuffle(short_tail, 3, sub, 1);
    const Finding f = reduction_shape(trace::analyze_block(short_tail, 0, 256), 256);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->measured, "threads writing shared memory in each barrier interval of block 0: 256, 128, 64, then "
                           "none, and 4 warp rounds in warp 0");
}

TEST(Shape, WarpsFirstThenWarp0IsATree)
{
    // CUB's order: 8 warps shuffle 5 rounds each, their lanes 0 store 8 sums
    // (8 x 2^5 = 256), then warp 0 shuffles 3 rounds (2 x 2^3 = 16 >= 8).
    std::vector<trace::LaneRecord> rs;
    for (std::uint32_t sub = 0; sub < 5; ++sub) shuffle(rs, 0, sub, 8);
    for (unsigned w = 0; w < 8; ++w) store(rs, 0, 32 * w, 1);
    for (std::uint32_t sub = 0; sub < 3; ++sub) shuffle(rs, 1, sub, 1);
    EXPECT_FALSE(reduction_shape(trace::analyze_block(rs, 0, 256), 256));
}

TEST(Shape, AtomicsIntoOneWordAreNotATree)
{
    // Thread 0 sets the word (1 writer), then 256 atomics: 1 writer cannot
    // hold 256 elements folded by 0 rounds (1, 2 or 4 a thread at most).
    std::vector<trace::LaneRecord> rs;
    store(rs, 0, 0, 1);
    store(rs, 1, 0, 256);
    for (trace::LaneRecord& r : rs)
        if (r.epoch == 1) r.kind = trace::Kind::Atomic;
    const Finding f = reduction_shape(trace::analyze_block(rs, 0, 256), 256);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->measured, "threads writing shared memory in each barrier interval of block 0: 1, 256, then none");
}

TEST(E10, TheModelsNWayIsGcdOfTheStride)
{
    // By hand from the model (32 banks of 4 bytes): 4-byte elements, lane l
    // reads word s*l, bank s*l mod 32: gcd(s, 32) words a bank. 8-byte
    // elements: words 2sl, 2sl + 1, a half-warp (16 lanes) a wavefront, ideal
    // 2: the even words 2sl mod 32 of 16 lanes put gcd(s, 16) on a bank.
    // For s = 1..8 both give 1, 2, 1, 4, 1, 2, 1, 8.
    const unsigned want[] = {1, 2, 1, 4, 1, 2, 1, 8};
    for (unsigned s = 1; s <= 8; ++s) {
        EXPECT_EQ(e10::model_ways(s, 4), want[s - 1]) << "stride " << s << ", 4 bytes";
        EXPECT_EQ(e10::model_ways(s, 8), want[s - 1]) << "stride " << s << ", 8 bytes";
    }
    // They part beyond: s = 16 is 16-way at both sizes; s = 32 is 32-way at 4 bytes, 16-way at 8.
    EXPECT_EQ(e10::model_ways(16, 4), 16u);
    EXPECT_EQ(e10::model_ways(32, 4), 32u);
    EXPECT_EQ(e10::model_ways(32, 8), 16u);
}

}  // namespace
}  // namespace wl::grade
