// The grader's own parts, without any kernel: the child-process runner (time
// limit, signals, output), turning result lines into checks, and the
// Gradescope and JUnit reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "grader.h"
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
    return GradeReport{"/tmp/x", "cpu", {ex}};
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
}

TEST(Reports, JUnitEscapesAndCountsFailures)
{
    const std::string xml = junit_xml(sample_report());
    EXPECT_NE(xml.find("<testsuites name=\"warplab grade\" tests=\"3\" failures=\"2\""), std::string::npos);
    EXPECT_NE(xml.find("message=\"a &quot;quoted&quot; &lt;step&gt;\""), std::string::npos);
    EXPECT_EQ(xml.find("<step>"), std::string::npos);
    EXPECT_EQ(xml_escape(std::string("a\x01" "b&")), "ab&amp;");
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

}  // namespace
}  // namespace wl::grade
