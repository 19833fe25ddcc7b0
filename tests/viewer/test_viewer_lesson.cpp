// Lessons (viewer/model/lesson.h): the format, field by field and error by error;
// answers read from traces, against hand-derived numbers; the keys that play
// a lesson; and the shipped lessons, each loaded, rendered headless as a
// handout, with every question's stated answer what its trace gives.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "labs/common/bench_json.h"
#include "viewer/app/lesson_player.h"
#include "viewer/model/timing_model.h"
#include "viewer/app/trace_runner.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/compare.h"

namespace warplab::viewer {
namespace {

using nlohmann::json;

#define REQUIRE_NVCC()                                                                 \
    do {                                                                               \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc for a file's kernel"; \
    } while (0)

// A slide of reduction v2 at step 3, with every field given.
json full_slide()
{
    return json::parse(R"({
        "lab": "reduction", "version": "v2", "step": 3, "arrangement": "memory",
        "highlight": [32, 33], "select": 33, "schedule": "lockstep", "warp_size": 64,
        "compare_widths": true, "caption": "strided index",
        "question": { "id": "v2-worst", "text": "how many ways?", "explanation": "banks 0, 8, 16, 24",
                      "answer": { "metric": "worst", "step": 3, "line": 33, "value": 8 } } })");
}

json lesson_of(std::vector<json> slides)
{
    return {{"title", "t"}, {"source", "Author, \"Title\""}, {"slides", slides}};
}

// The one-line error parsing `doc` throws; fails the test where it parses.
std::string error_of(const json& doc)
{
    try {
        parse_lesson(doc);
    } catch (const LessonError& e) {
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "parsed: " << doc.dump();
    return {};
}

// A slide of `fields` over `slide`, second after full_slide().
json second_slide(json slide, const json& fields)
{
    for (const auto& [key, value] : fields.items()) slide[key] = value;
    return lesson_of({full_slide(), slide});
}

// What parsing `doc` from `folder` says: its error, or "parsed".
std::string error_in_folder(const json& doc, const std::filesystem::path& folder)
{
    try {
        parse_lesson(doc, folder);
    } catch (const LessonError& e) {
        return e.what();
    }
    return "parsed";
}

TEST(ViewerLesson, EveryFieldIsRead)
{
    const Lesson lesson = parse_lesson(lesson_of({full_slide()}));
    EXPECT_EQ(lesson.title, "t");
    EXPECT_EQ(lesson.source, "Author, \"Title\"");
    ASSERT_EQ(lesson.slides.size(), 1u);
    const Slide& s = lesson.slides[0];
    EXPECT_EQ(s.lab, "reduction");
    EXPECT_EQ(s.version, "v2");
    EXPECT_EQ(s.step, 3u);
    EXPECT_EQ(s.arrangement, "memory");
    EXPECT_EQ(s.highlight, (std::vector<std::uint32_t>{32, 33}));
    EXPECT_EQ(s.select, 33u);
    EXPECT_EQ(s.schedule, "lockstep");
    EXPECT_EQ(s.warp_size, 64u);
    EXPECT_TRUE(s.compare_widths);
    EXPECT_EQ(s.caption, "strided index");
    ASSERT_TRUE(s.question);
    EXPECT_EQ(s.question->id, "v2-worst");
    EXPECT_EQ(s.question->text, "how many ways?");
    EXPECT_EQ(s.question->explanation, "banks 0, 8, 16, 24");
    EXPECT_EQ(s.question->answer.metric, "worst");
    EXPECT_EQ(s.question->answer.step, 3u);
    EXPECT_EQ(s.question->answer.line, 33u);
    EXPECT_EQ(s.question->answer.value, 8.0);

    const Lesson coalescing = parse_lesson(lesson_of({{{"lab", "coalescing"}, {"version", "v1"}, {"setting", 5}, {"caption", "c"}}}));
    EXPECT_EQ(coalescing.slides[0].setting, 5);
}

// A later slide takes the lab and version of the one before; the rest has defaults.
TEST(ViewerLesson, DefaultsAndInheritance)
{
    const Lesson lesson = parse_lesson(lesson_of({full_slide(), {{"caption", "next"}}, {{"version", "v3"}, {"caption", "v3"}}}));
    const Slide& second = lesson.slides[1];
    EXPECT_EQ(second.lab, "reduction");
    EXPECT_EQ(second.version, "v2");
    EXPECT_EQ(second.step, 0u);
    EXPECT_EQ(second.arrangement, "");
    EXPECT_TRUE(second.highlight.empty());
    EXPECT_FALSE(second.select);
    EXPECT_EQ(second.schedule, "independent");
    EXPECT_EQ(second.warp_size, 32u);
    EXPECT_EQ(second.setting, -1);
    EXPECT_FALSE(second.compare_widths);
    EXPECT_FALSE(second.question);
    EXPECT_EQ(lesson.slides[2].version, "v3");
}

// Each kind of error names its slide and field, in one line.
TEST(ViewerLesson, EachErrorNamesItsSlideAndField)
{
    const json good = full_slide();
    const auto second_with = [&](const std::string& key, const json& value) {
        json s = good;
        s[key] = value;
        return lesson_of({good, s});
    };
    const auto second_without = [&](const std::string& key) {
        json s = good;
        s.erase(key);
        return lesson_of({good, s});
    };
    const auto answer_with = [&](const std::string& key, const json& value) {
        json s = good;
        s["question"]["answer"][key] = value;
        return lesson_of({good, s});
    };
    struct Case {
        json doc;
        std::string says;
    };
    const std::vector<Case> cases = {
        {second_with("lab", "reductoin"), "slide 2, 'lab': unknown lab 'reductoin' (did you mean 'reduction'?)"},
        {second_with("lab", "transfers"), "slide 2, 'step': lab transfers's versions are host programs, with no trace"},
        {second_with("version", "v99"), "slide 2, 'version': unknown version 'v99' of lab reduction"},
        {second_with("highlight", json::array({33, 5000})), "slide 2, 'highlight': line 5000 is not in v2's source"},
        {second_with("highlight", 33), "slide 2, 'highlight': expected a list of line numbers"},
        {second_with("select", 0), "slide 2, 'select': line 0 is not in v2's source"},
        {second_with("step", "3"), "slide 2, 'step': expected a whole number from 0, got \"3\""},
        {second_with("step", -1), "slide 2, 'step': expected a whole number from 0, got -1"},
        {second_with("arrangement", "memroy"), "slide 2, 'arrangement': no arrangement 'memroy' (did you mean 'memory'?)"},
        {second_with("schedule", "sometimes"), "slide 2, 'schedule': expected independent or lockstep"},
        {second_with("warp_size", 48), "slide 2, 'warp_size': expected 32 or 64"},
        {second_with("setting", 3), "slide 2, 'setting': reduction v2 takes no setting"},
        {second_with("compare_widths", 1), "slide 2, 'compare_widths': expected true or false"},
        {second_with("captoin", "x"), "slide 2, 'captoin': no such field (did you mean 'caption'?)"},
        {second_without("caption"), "slide 2, 'caption': missing"},
        {second_with("caption", ""), "slide 2, 'caption': empty"},
        {second_with("question", "how many?"), "slide 2, 'question': expected an object"},
        {answer_with("metric", "wrost"), "slide 2, 'question.answer.metric': unknown metric 'wrost' (did you mean 'worst'?)"},
        {answer_with("line", 999), "slide 2, 'question.answer.line': line 999 is not in v2's source"},
        {answer_with("value", "8"), "slide 2, 'question.answer.value': expected a number"},
        {answer_with("colour", 1), "slide 2, 'question.answer.colour': no such field"},
        {lesson_of({{{"version", "v1"}, {"caption", "c"}}}), "slide 1, 'lab': missing"},
        {lesson_of({good, {{"lab", "transpose"}, {"caption", "c"}}}), "slide 2, 'version': missing"},
        {second_with("file", "no_such_kernel.cu"), "slide 2, 'file': cannot read no_such_kernel.cu"},
        {second_with("kernel", "reduce"), "slide 2, 'kernel': names a kernel of 'file'; give 'file' too"},
        {second_with("compare", "v99"), "slide 2, 'compare': unknown version 'v99' of lab reduction to compare with"},
        {second_with("compare", "v2"), "slide 2, 'compare': that is the version shown; name another"},
        {lesson_of({}), "'slides': expected a list of at least one slide"},
        {json{{"slides", json::array({good})}}, "'title': missing"},
    };
    for (const Case& c : cases) {
        const std::string said = error_of(c.doc);
        EXPECT_EQ(said.rfind(c.says, 0), 0u) << "expected it to start with: " << c.says << "\n                    it said: " << said;
    }
    json no_text = good;
    no_text["question"].erase("text");
    EXPECT_EQ(error_of(lesson_of({no_text})), "slide 1, 'question.text': missing");
}

// A student's hand-in for reduction v3 (tests/cli/kernels/strided_sum.cu, 20 lines, one kernel).
const char* kStudentFile = "kernels/strided_sum.cu";
std::filesystem::path student_folder() { return data_dir() / "tests" / "cli"; }

// A slide may show a .cu file's kernel in a version's launch (--file): the
// file is found from the lesson's folder, its kernel named as the file
// declares it, the slide's lines counted in it; "compare" names the version
// shown beside it. A slide that names nothing of its source keeps the file
// (and not "compare", which is the slide's own); one that names a version
// shows the version's own kernel.
TEST(ViewerLesson, ASlideShowsAFilesKernel)
{
    const json first = {{"lab", "reduction"}, {"version", "v3"}, {"file", kStudentFile}, {"highlight", {16}}, {"select", 16},
                        {"compare", "v3"}, {"caption", "the hand-in"}};
    const Lesson lesson =
        parse_lesson(lesson_of({first, {{"step", 1}, {"caption", "same file"}}, {{"version", "v2"}, {"caption", "v2's own"}}}), student_folder());
    const std::string resolved = (student_folder() / kStudentFile).lexically_normal().string();
    const Slide& s = lesson.slides[0];
    EXPECT_EQ(s.file, resolved);
    EXPECT_EQ(s.kernel, "strided_sum");  // the file's only kernel, none named
    EXPECT_EQ(s.version, "v3");
    EXPECT_EQ(s.compare, "v3");  // a file's kernel beside the version whose launch it takes
    EXPECT_EQ(s.highlight, (std::vector<std::uint32_t>{16}));
    EXPECT_EQ(source_lines_file(s), resolved);
    EXPECT_EQ(lesson.slides[1].file, resolved);
    EXPECT_EQ(lesson.slides[1].kernel, "strided_sum");
    EXPECT_EQ(lesson.slides[1].compare, "");
    EXPECT_EQ(lesson.slides[2].file, "");
    EXPECT_EQ(lesson.slides[2].kernel, "");
    EXPECT_EQ(source_lines_file(lesson.slides[2]), "kernels/reduction/02_interleaved_strided.cuh");
    EXPECT_EQ(parse_lesson(lesson_of({{{"lab", "reduction"}, {"version", "v1"}, {"compare", "v5"}, {"caption", "c"}}})).slides[0].compare, "v5");

    // Its errors name the slide and the field, lines counted in the file (20 lines).
    const auto second = [&](const json& fields) { return second_slide(first, fields); };
    for (const auto& [doc, says] : std::vector<std::pair<json, std::string>>{
             {second({{"kernel", "strided_sun"}}), "slide 2, 'kernel': no kernel 'strided_sun' in"},
             {second({{"highlight", {21}}}), "slide 2, 'highlight': line 21 is not in " + resolved + " (lines 1 to 20)"},
             {second({{"question", {{"text", "q"}, {"answer", {{"metric", "worst"}, {"line", 40}}}}}}),
              "slide 2, 'question.answer.line': line 40 is not in " + resolved},
             {second({{"file", "kernels/no_such.cu"}}), "slide 2, 'file': cannot read " + (student_folder() / "kernels/no_such.cu").string()},
             {second({{"file", 3}}), "slide 2, 'file': expected a string, got 3"}}) {
        const std::string said = error_in_folder(doc, student_folder());
        EXPECT_EQ(said.rfind(says, 0), 0u) << "expected it to start with: " << says << "\n                    it said: " << said;
    }
    // A file of several kernels needs the slide's "kernel": the message says so, in the lesson's words.
    json several = first;
    several["file"] = "kernels/harris_style.cu";
    const std::string said = error_in_folder(lesson_of({several}), student_folder());
    EXPECT_EQ(said.rfind("slide 1, 'file': ", 0), 0u) << said;
    EXPECT_NE(said.find("kernels: name one with 'kernel' (reduce_modulo"), std::string::npos) << said;
    // Without the lesson's folder the same relative name is the working directory's.
    EXPECT_EQ(error_of(lesson_of({first})).rfind("slide 1, 'file': cannot read kernels/strided_sum.cu", 0), 0u);
}

// tests/viewer/lessons/sum_of_squares.cu: a whole program (main(),
// cudaMalloc, cudaMemcpy) that launches square, then block_sum.
std::filesystem::path program_folder() { return data_dir() / "tests" / "viewer" / "lessons"; }

// A slide may show a launch of a whole program (warplab run's): "run" is
// found from the lesson's folder, "launch" counts the program's launches or
// names a kernel's ("kernel[:n]", as --watch reads it; default 1). A slide with
// "launch" alone shows the slide before's program; one that names nothing of
// its source keeps the launch; "lab" names the lab of "compare"; lines count in
// the program's file. Which launches the program made is known only once it
// has run (test_viewer_lesson_program.cpp): here, what the format says.
TEST(ViewerLesson, ASlideShowsAProgramsLaunch)
{
    const json first = {{"run", "sum_of_squares.cu"}, {"launch", 1}, {"highlight", {13}}, {"select", 13}, {"caption", "squares"}};
    const Lesson lesson = parse_lesson(lesson_of({first,
                                                  {{"launch", "block_sum"}, {"step", 1}, {"caption", "sums"}},
                                                  {{"launch", "block_sum:2"}, {"lab", "reduction"}, {"compare", "v3"}, {"caption", "beside"}},
                                                  {{"caption", "the same launch"}},
                                                  {{"lab", "reduction"}, {"version", "v3"}, {"caption", "the lab's own"}}}),
                                       program_folder());
    const std::string program = (program_folder() / "sum_of_squares.cu").lexically_normal().string();
    const Slide& s = lesson.slides[0];
    EXPECT_EQ(s.run, program);
    EXPECT_EQ(s.launch, 1u);
    EXPECT_EQ(s.launch_kernel, "");
    EXPECT_EQ(s.lab, "");
    EXPECT_EQ(s.version, "");
    EXPECT_EQ(s.highlight, (std::vector<std::uint32_t>{13}));
    EXPECT_EQ(source_lines_file(s), program);
    EXPECT_EQ(launch_text(s), "launch 1");
    EXPECT_EQ(lesson.slides[1].run, program);  // "launch" alone: the slide before's program
    EXPECT_EQ(lesson.slides[1].launch_kernel, "block_sum");
    EXPECT_EQ(lesson.slides[1].launch, 1u);  // a kernel's first launch where no ":n"
    EXPECT_EQ(launch_text(lesson.slides[1]), "block_sum:1");
    EXPECT_EQ(lesson.slides[2].launch, 2u);
    EXPECT_EQ(lesson.slides[2].lab, "reduction");
    EXPECT_EQ(lesson.slides[2].compare, "v3");
    EXPECT_EQ(lesson.slides[3].run, program);  // nothing of its source named: the slide before's launch and lab
    EXPECT_EQ(launch_text(lesson.slides[3]), "block_sum:2");
    EXPECT_EQ(lesson.slides[3].compare, "");
    EXPECT_EQ(lesson.slides[4].run, "");  // a lab's version again
    EXPECT_EQ(source_lines_file(lesson.slides[4]), "kernels/reduction/03_sequential_addressing.cuh");

    // Its errors name the slide and the field (the program has 55 lines).
    const auto second = [&](const json& fields) { return second_slide(first, fields); };
    const std::string expected_launch = "expected a launch's number from 1 or \"kernel[:n]\", got ";
    for (const auto& [doc, says] : std::vector<std::pair<json, std::string>>{
             {second({{"run", "no_such.cu"}}), "slide 2, 'run': cannot read " + (program_folder() / "no_such.cu").string()},
             {second({{"run", 7}}), "slide 2, 'run': expected a string, got 7"},
             {second({{"launch", 0}}), "slide 2, 'launch': launches count from 1"},
             {second({{"launch", "block sum"}}), "slide 2, 'launch': " + expected_launch + "\"block sum\""},
             {second({{"launch", "block_sum:0"}}), "slide 2, 'launch': " + expected_launch + "\"block_sum:0\""},
             {second({{"launch", "block_sum:"}}), "slide 2, 'launch': " + expected_launch + "\"block_sum:\""},
             {second({{"launch", true}}), "slide 2, 'launch': " + expected_launch + "true"},
             {lesson_of({{{"launch", 2}, {"caption", "c"}}}), "slide 1, 'launch': counts the launches of a program: give 'run' too"},
             {second({{"version", "v3"}}), "slide 2, 'version': a slide with 'run' or 'launch' shows a program's launch"},
             {second({{"file", "sum_of_squares.cu"}}), "slide 2, 'file': a slide with 'run' or 'launch' shows a program's launch"},
             {second({{"schedule", "lockstep"}}), "slide 2, 'schedule': a program's launch is shown as the program made it"},
             {second({{"warp_size", 64}}), "slide 2, 'warp_size': a program's launch is shown as the program made it"},
             {lesson_of({{{"run", "sum_of_squares.cu"}, {"compare", "v3"}, {"caption", "c"}}}),  // no lab before it either
              "slide 1, 'compare': a program's launch is compared with a lab's version: give 'lab' too"},
             {second({{"lab", "reduction"}, {"compare", "v99"}}), "slide 2, 'compare': unknown version 'v99' of lab reduction"},
             {second({{"lab", "transfers"}, {"compare", "v1"}}), "slide 2, 'compare': lab transfers's versions are host programs"},
             {second({{"lab", "reductoin"}}), "slide 2, 'lab': unknown lab 'reductoin'"},
             {second({{"highlight", {56}}}), "slide 2, 'highlight': line 56 is not in " + program + " (lines 1 to 55)"},
             {second({{"arrangement", "timeline"}}), "slide 2, 'arrangement': no arrangement 'timeline'"},
             {second({{"question", {{"text", "q"}, {"answer", {{"metric", "time_ms"}}}}}}),
              "slide 2, 'question.answer.metric': a program's launch has no recorded times"}}) {
        const std::string said = error_in_folder(doc, program_folder());
        EXPECT_EQ(said.rfind(says, 0), 0u) << "expected it to start with: " << says << "\n                    it said: " << said;
        EXPECT_EQ(said.find('\n'), std::string::npos) << said;
    }
}

TEST(ViewerLesson, AFileThatCannotBeReadOrIsNotJsonIsOneLine)
{
    const std::string dir = testing::TempDir();
    std::ofstream(dir + "lesson_bad.json") << "{ \"title\": \"t\", \"slides\": [ }";
    for (const auto& [file, says] : std::vector<std::pair<std::string, std::string>>{
             {dir + "lesson_bad.json", "lesson_bad.json: not JSON"}, {dir + "no_such_lesson.json", "no_such_lesson.json: cannot read it"}}) {
        try {
            load_lesson(file);
            ADD_FAILURE() << file << " loaded";
        } catch (const LessonError& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        }
    }
    std::ofstream(dir + "lesson_bad_version.json") << lesson_of({{{"lab", "reduction"}, {"version", "v99"}, {"caption", "c"}}}).dump();
    try {
        load_lesson(dir + "lesson_bad_version.json");
        ADD_FAILURE() << "a lesson of reduction v99 loaded";
    } catch (const LessonError& e) {
        EXPECT_NE(std::string(e.what()).find("lesson_bad_version.json: slide 1, 'version': unknown version 'v99'"), std::string::npos)
            << e.what();
    }
}

TEST(ViewerLesson, TypedAnswersMatchAsTheyAreShown)
{
    EXPECT_EQ(answer_text(8), "8");
    EXPECT_EQ(answer_text(4.5), "4.5");
    EXPECT_EQ(answer_text(18.0), "18");
    for (const char* typed : {"8", " 8", "8.0", "8-way", "8 ways", "8x"}) EXPECT_TRUE(answer_matches(typed, 8)) << typed;
    for (const char* typed : {"9", "", "eight", "-8", "80", "8.1"}) EXPECT_FALSE(answer_matches(typed, 8)) << typed;
    EXPECT_TRUE(answer_matches("4.5", 4.5));
    EXPECT_FALSE(answer_matches("4", 4.5));
    EXPECT_FALSE(answer_matches("5", 4.5));
}

App app_on_emulator()
{
    App app;
    app.sel.backend = BackendChoice::Cpu;
    return app;
}

LessonAnswer answer(const std::string& metric, std::optional<std::uint32_t> line = {}, std::optional<std::uint32_t> step = {})
{
    LessonAnswer a;
    a.metric = metric;
    a.line = line;
    a.step = step;
    return a;
}

// Reduction v2 (n = 4096, block 256), hand-derived: in step 3 (s = 4) lane k of
// warp 0 adds word 8k + 4 into word 8k, line 33; banks 0, 8, 16, 24 get 8
// words each: 8-way; one warp, 32 threads, two loads and a store of 8
// wavefronts each: 24. Step 1 (s = 1): 128 threads in 4 warps, 2-way. Step 0
// reads g_in: 32 consecutive ints a warp, 4 sectors a request, 8 warps.
TEST(ViewerLesson, AnswersReadFromTheTrace)
{
    App app = app_on_emulator();
    select_by_name(app, "reduction", "v2");
    const TracedRun* run = current_run(app);
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(answer_value(*run, answer("worst"), 3), 8);
    EXPECT_EQ(answer_value(*run, answer("worst", 33), 3), 8);
    EXPECT_EQ(answer_value(*run, answer("shared_wf", 33), 3), 24);
    EXPECT_EQ(answer_value(*run, answer("shared_ideal", 33), 3), 3);
    EXPECT_EQ(answer_value(*run, answer("threads", 33), 3), 32);
    EXPECT_EQ(answer_value(*run, answer("warps"), 3), 1);
    EXPECT_EQ(answer_value(*run, answer("threads"), 1), 128);
    EXPECT_EQ(answer_value(*run, answer("warps", std::nullopt, 1), 3), 4);  // the answer's own step
    EXPECT_EQ(answer_value(*run, answer("worst", std::nullopt, 1), 3), 2);
    EXPECT_EQ(answer_value(*run, answer("partial"), 3), 0);
    EXPECT_EQ(answer_value(*run, answer("partial"), 4), 1);  // 16 of warp 0's lanes
    EXPECT_EQ(answer_value(*run, answer("load_sectors"), 0), 4);
    EXPECT_EQ(answer_value(*run, answer("global_requests"), 0), 8);
    EXPECT_EQ(answer_value(*run, answer("steps"), 0), 10);
    for (const auto& [a, says] : std::vector<std::pair<LessonAnswer, std::string>>{
             {answer("worst", std::nullopt, 10), "step 10 is not among the trace's 10 steps"},
             {answer("worst", 27), "step 3 has no access at line 27"},
             {answer("sectors"), "step 3 has no such global access: 'sectors' is undefined"},
             {answer("store_sectors", std::nullopt, 0), "step 0 has no such global access"}}) {
        try {
            answer_value(*run, a, 3);
            ADD_FAILURE() << "no error: " << says;
        } catch (const LessonError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(says, 0), 0u) << e.what();
        }
    }
}

// Two derivations agree: where a step's accesses are all at one line, that
// line's numbers (from the warp events, as the banks and global panels draw
// them) are the step's (from the analysis the CLI prints), in every such step.
TEST(ViewerLesson, ALinesNumbersAreItsStepsWhereTheStepHasOneLine)
{
    for (const auto& [lab, version] : std::vector<std::pair<std::string, std::string>>{{"reduction", "v1"}, {"reduction", "v2"}, {"transpose", "v2"}}) {
        App app = app_on_emulator();
        select_by_name(app, lab, version);
        select_settings(app, app.sel);
        const TracedRun* run = current_run(app);
        ASSERT_NE(run, nullptr) << lab << " " << version;
        int compared = 0;
        for (std::uint32_t step = 0; step < run->steps.size(); ++step) {
            if (run->steps[step].lines.size() != 1) continue;
            const std::uint32_t line = run->steps[step].lines[0];
            for (const char* metric : {"threads", "warps", "partial", "shared_wf", "shared_ideal", "worst", "global_requests"})
                EXPECT_EQ(answer_value(*run, answer(metric, line), step), answer_value(*run, answer(metric), step))
                    << lab << " " << version << " step " << step << " " << metric;
            ++compared;
        }
        EXPECT_GE(compared, 2) << lab << " " << version;
    }
}

// The recorded metrics, read from results/h200-transfers.json (two H200s) by
// hand: v1 moves 2 GiB in 208.165 ms (10.316 GB/s) against a bound of
// 19.4757 ms (9.36 %); v3's row is its fastest setting, "v3 4 streams"
// (22.980 ms), so its speed-up over v2 (39.542 ms) is the ratio of those
// rows, 1.72, where the table's own 1.00 is against "v3 2 streams"; that
// run's timeline copies 16 chunks in. v5 builds on v2: 1.92. v4's zero-copy
// kernel copies nothing in, and v1 has no version before it.
TEST(ViewerLesson, RecordedAnswersAreTheRecordings)
{
    const Timing timing = load_recorded_timing(results_dir());
    const int shown = default_table(timing, "transfers", "float");
    ASSERT_GE(shown, 0);
    const BenchTable& table = timing.tables[shown].table;
    const Lab& lab = *find_lab("transfers");
    EXPECT_NEAR(recorded_value(table, lab, "v1", "rate"), 10.316, 0.001);
    EXPECT_NEAR(recorded_value(table, lab, "v1", "time_ms"), 208.165, 0.001);
    EXPECT_NEAR(recorded_value(table, lab, "v1", "bound_percent"), 9.356, 0.001);
    EXPECT_NEAR(recorded_value(table, lab, "v3", "speedup"), 1.7207, 0.0001);
    EXPECT_EQ(recorded_value(table, lab, "v3", "copies_in"), 16);
    EXPECT_NEAR(recorded_value(table, lab, "v5", "speedup"), 1.9197, 0.0001);
    for (const auto& [version, metric, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"v4", "copies_in", "transfers v4's recording has no 'copies_in': no copy to the GPU in its timeline"},
             {"v1", "speedup", "transfers v1's recording has no 'speedup': it is the first version"},
             {"v9", "rate", "transfers v9 is not in the recorded times"}}) {
        try {
            recorded_value(table, lab, version, metric);
            ADD_FAILURE() << version << " " << metric << " gave a value";
        } catch (const LessonError& e) {
            EXPECT_EQ(std::string(e.what()), says);
        }
    }
    // A lab of kernels asks them too: matmul's GPU-only v11 by its recorded time.
    const int matmul = default_table(timing, "matmul", "float");
    ASSERT_GE(matmul, 0);
    EXPECT_GT(recorded_value(timing.tables[matmul].table, *find_lab("matmul"), "v11", "time_ms"), 0);
    EXPECT_THROW(recorded_value(timing.tables[matmul].table, *find_lab("matmul"), "v11", "bound_percent"), LessonError);
}

// A slide of a lab of host programs shows their recorded runs: it names
// nothing of a trace's, and asks what the recording says.
TEST(ViewerLesson, HostProgramsSlidesAskTheRecording)
{
    const json slide = {{"lab", "transfers"}, {"version", "v3"}, {"arrangement", "runs"}, {"highlight", {26}}, {"caption", "streams"},
                        {"question", {{"text", "copies?"}, {"answer", {{"metric", "copies_in"}, {"value", 16}}}}}};
    const Lesson lesson = parse_lesson(lesson_of({slide}));
    EXPECT_EQ(lesson.slides[0].question->answer.metric, "copies_in");
    const auto with = [&](const std::string& key, const json& value) {
        json s = slide;
        s[key] = value;
        return lesson_of({s});
    };
    const auto answer_with = [&](const std::string& key, const json& value) {
        json s = slide;
        s["question"]["answer"][key] = value;
        return lesson_of({s});
    };
    for (const auto& [doc, says] : std::vector<std::pair<json, std::string>>{
             {answer_with("metric", "worst"), "slide 1, 'question.answer.metric': lab transfers's versions are host programs, with no trace: "
                                              "ask what the recording says (time_ms, rate, speedup, bound_percent, copies_in)"},
             {answer_with("line", 26), "slide 1, 'question.answer.line': 'copies_in' is the recorded version's, not a step's or a line's"},
             {with("step", 1), "slide 1, 'step': lab transfers's versions are host programs, with no trace"},
             {with("select", 26), "slide 1, 'select': lab transfers's versions are host programs"},
             {with("schedule", "lockstep"), "slide 1, 'schedule': lab transfers's versions are host programs"},
             {with("compare", "v2"), "slide 1, 'compare': lab transfers's versions are host programs: no steps to compare"},
             {with("file", "kernels/strided_sum.cu"), "slide 1, 'file': lab transfers's versions are host programs: none launches a kernel of a file"},
             {with("highlight", {999}), "slide 1, 'highlight': line 999 is not in v3's source kernels/transfers/03_streams.cuh"}}) {
        const std::string said = error_of(doc);
        EXPECT_EQ(said.rfind(says, 0), 0u) << "expected it to start with: " << says << "\n                    it said: " << said;
    }
    // Played: the answer comes from the recording the time panel shows, with no trace at all.
    App app = app_on_emulator();
    app.timing = load_recorded_timing(results_dir());
    start_lesson(app, std::make_shared<const Lesson>(lesson));
    EXPECT_FALSE(current_run(app));
    EXPECT_EQ(slide_answer(app).value, 16.0);
    EXPECT_EQ(answer_disagreement(app), "");
    app.timing = {};  // no recording: no answer, and it says why
    EXPECT_EQ(slide_answer(app).error, "no recorded times of lab transfers in results/");
}

std::shared_ptr<const Lesson> three_slides()
{
    json second = full_slide();
    second["schedule"] = "independent";
    second["warp_size"] = 32;
    second["compare_widths"] = false;
    return std::make_shared<const Lesson>(parse_lesson(lesson_of({{{"lab", "reduction"}, {"version", "v1"}, {"step", 1}, {"caption", "one"}},
                                                                  second,
                                                                  {{"lab", "transpose"}, {"version", "v3"}, {"step", 1}, {"caption", "three"}}})));
}

TEST(ViewerLesson, ASlideSelectsWhatItNames)
{
    App app = app_on_emulator();
    start_lesson(app, three_slides(), 1);
    EXPECT_TRUE(app.presenter);
    EXPECT_EQ(current_lab(app).id, "reduction");
    EXPECT_STREQ(current_version(app).id, "v2");
    EXPECT_EQ(app.sel.step, 3u);
    EXPECT_EQ(app.view, 1);  // "memory", the second arrangement
    ASSERT_TRUE(app.focus.shared_event);
    const TracedRun* run = current_run(app);
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->block.events[*app.focus.shared_event].site.line, 33u);
    EXPECT_EQ(highlighted_lines(app), (std::vector<std::uint32_t>{32, 33}));
    EXPECT_EQ(slide_answer(app).value, 8.0);
    EXPECT_EQ(answer_disagreement(app), "");
    show_slide(app, 2);
    EXPECT_EQ(current_lab(app).id, "transpose");
    EXPECT_STREQ(current_version(app).id, "v3");
    EXPECT_EQ(app.view, 0);
    EXPECT_EQ(slide_answer(app).error, "this slide asks nothing");
}

// Reduction v4's step 0 loads g_in at lines 25 and 26 (4 sectors each) and
// stores sdata at 27: the global panel opens on the first of equals, line 25;
// a slide that selects line 26 shows that load instead. In a browser the
// trace arrives later (App::start_trace, the page's Worker): the step waits,
// the answer says so, and the instruction is selected once the trace is there.
TEST(ViewerLesson, TheSlidesInstructionIsSelectedOnceItsTraceArrives)
{
    const auto lesson = std::make_shared<const Lesson>(
        parse_lesson(lesson_of({{{"lab", "reduction"}, {"version", "v4"}, {"select", 26}, {"caption", "the second load"},
                                 {"question", {{"text", "sectors?"}, {"answer", {{"metric", "sectors"}, {"line", 26}, {"value", 4}}}}}}})));
    const auto global_line = [](App& app) { return current_run(app)->block.events.at(app.focus.global_event.value()).site.line; };
    App desk = app_on_emulator();
    select_by_name(desk, "reduction", "v4");
    set_step(desk, 0);
    EXPECT_EQ(global_line(desk), 25u);  // without the slide
    start_lesson(desk, lesson);
    EXPECT_EQ(global_line(desk), 26u);

    App web = app_on_emulator();
    std::vector<std::pair<TraceKey, RunRequest>> started;
    web.start_trace = [&](const TraceKey& key, const RunRequest& req, TraceReply) { started.emplace_back(key, req); };
    start_lesson(web, lesson);
    ASSERT_EQ(started.size(), 1u);
    EXPECT_FALSE(web.focus.global_event);
    EXPECT_EQ(slide_answer(web).error, "the trace is still running");
    trace_arrived(web, started[0].first, run_trace(current_lab(web), started[0].second));
    EXPECT_EQ(global_line(web), 25u);  // the step's worst, as any arrived trace opens
    follow_lesson(web);                 // the lesson panel's, each frame
    EXPECT_EQ(global_line(web), 26u);
    EXPECT_EQ(slide_answer(web).value, 4.0);
}

// Method v18's line 24, atomicAdd(out, in[i]), is two global instructions a
// warp: the load of in[i], 32 consecutive floats (4 sectors, the ideal 4), and
// the atomic on out[0] (one sector for 128 bytes, ideal 4). By sectors the
// load is the costlier, but the line is about the atomic (its cost, lanes
// updating one address in turn, is not in sectors): the global panel opens on
// the atomic, on its own and under the method lesson's slide that selects 24.
TEST(ViewerLesson, ALineWithAnAtomicShowsTheAtomic)
{
    const auto focused = [](App& app) { return current_run(app)->block.events.at(app.focus.global_event.value()); };
    App desk = app_on_emulator();
    select_by_name(desk, "method", "v18");
    set_step(desk, 0);
    const wl::trace::WarpEvent atomic = focused(desk);
    EXPECT_EQ(atomic.kind, wl::trace::Kind::Atomic);
    EXPECT_EQ(atomic.site.line, 24u);
    EXPECT_EQ(sector_view(atomic).cost.sectors, 1u);
    // The load it stands in front of is in the step, at the same line and warp, with more sectors.
    const TracedRun& run = *current_run(desk);
    const auto events = memory_events(run.block, 0, wl::trace::Space::Global);
    const auto load = std::find_if(events.begin(), events.end(), [&](std::size_t i) {
        const wl::trace::WarpEvent& e = run.block.events[i];
        return e.kind == wl::trace::Kind::Load && e.site == atomic.site && e.warp == atomic.warp;
    });
    ASSERT_NE(load, events.end());
    EXPECT_EQ(sector_view(run.block.events[*load]).cost.sectors, 4u);

    App lesson = app_on_emulator();
    start_lesson(lesson, std::make_shared<const Lesson>(parse_lesson(
                             lesson_of({{{"lab", "method"}, {"version", "v18"}, {"select", 24}, {"caption", "one sum"}}}))));
    EXPECT_EQ(focused(lesson).kind, wl::trace::Kind::Atomic);
    EXPECT_EQ(focused(lesson).site.line, 24u);
}

TEST(ViewerLesson, AWrongStatedAnswerIsReported)
{
    json slide = full_slide();
    slide["schedule"] = "independent";
    slide["warp_size"] = 32;
    slide["question"]["answer"]["value"] = 4;
    App app = app_on_emulator();
    start_lesson(app, std::make_shared<const Lesson>(parse_lesson(lesson_of({slide}))));
    EXPECT_EQ(answer_disagreement(app), "slide 1, 'question.answer': the lesson says 4, the trace gives 8");
}

// PageDown and PageUp (a clicker's keys, or its Left and Right) move between
// slides and stop at either end; R, B and period reveal and hide; moving
// hides the answer and clears what the learner typed. Other keys are the viewer's.
TEST(ViewerLesson, KeysPlayTheLesson)
{
    App app = app_on_emulator();
    start_lesson(app, three_slides());
    EXPECT_EQ(app.lesson.slide, 0u);
    on_key(app, Key::PageUp);
    EXPECT_EQ(app.lesson.slide, 0u);
    on_key(app, Key::PageDown);
    EXPECT_EQ(app.lesson.slide, 1u);
    EXPECT_STREQ(current_version(app).id, "v2");
    for (Key reveal : {Key::R, Key::B, Key::Period}) {
        on_key(app, reveal);
        EXPECT_TRUE(app.lesson.revealed);
        on_key(app, reveal);
        EXPECT_FALSE(app.lesson.revealed);
    }
    app.lesson.typed = "4";
    check_typed_answer(app);
    EXPECT_EQ(app.lesson.matched, false);
    app.lesson.typed = "8-way";
    check_typed_answer(app);
    EXPECT_EQ(app.lesson.matched, true);
    on_key(app, Key::R);
    on_key(app, Key::Right);
    EXPECT_EQ(app.lesson.slide, 2u);
    EXPECT_FALSE(app.lesson.revealed);
    EXPECT_EQ(app.lesson.typed, "");
    EXPECT_FALSE(app.lesson.matched);
    on_key(app, Key::PageDown);  // the last slide stays
    EXPECT_EQ(app.lesson.slide, 2u);
    on_key(app, Key::Left);
    EXPECT_EQ(app.lesson.slide, 1u);
    on_key(app, Key::Down);  // the viewer's own: the next version, the slide unchanged
    EXPECT_STREQ(current_version(app).id, "v3");
    EXPECT_EQ(app.lesson.slide, 1u);
}

TEST(ViewerLesson, WithoutALessonTheKeysAreTheViewers)
{
    App app = app_on_emulator();
    select_by_name(app, "reduction", "v2");
    set_step(app, 2);
    on_key(app, Key::PageDown);
    on_key(app, Key::R);
    EXPECT_EQ(app.sel.step, 2u);
    EXPECT_FALSE(app.lesson.revealed);
    on_key(app, Key::Right);
    EXPECT_EQ(app.sel.step, 3u);
}

std::string slurp(const std::string& path)
{
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

int run_viewer(const std::string& args, std::string& output)
{
    std::string test = testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '_');  // a parameterised test's "Name/param"
    const std::string out = testing::TempDir() + "lesson_" + test + ".txt";
    const int status = std::system((std::string(WARPLAB_VIEWER_EXE) + " " + args + " > " + out + " 2>&1").c_str());
    output = slurp(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// One per lab.
TEST(ViewerLesson, ShippedLessonsAreOnePerLab)
{
    EXPECT_EQ(shipped_lessons(), (std::vector<std::string>{"coalescing", "image", "matmul", "method", "reduction", "transfers", "transpose"}));
}

// Each shipped lesson is its own CTest entry, so that ctest -j renders them
// side by side. It has at most about 20 slides, cites its source, and asks at
// least 5 questions, each stating its answer. The real executable renders it
// headless: a picture per slide and per revealed answer, and a handout page
// with every stated answer. The tour stops on a question whose stated answer
// is not what the trace or the recording gives (AWrongStatedAnswerStopsTheTour),
// so the page's answers are the traces'.
class ShippedLesson : public testing::TestWithParam<std::string> {};

TEST_P(ShippedLesson, RendersAsAHandoutWhoseAnswersAreTheTraces)
{
    const std::string& name = GetParam();
    const Lesson lesson = load_lesson(name);
    EXPECT_LE(lesson.slides.size(), 20u);
    EXPECT_FALSE(lesson.source.empty());
    const auto questions = std::count_if(lesson.slides.begin(), lesson.slides.end(), [](const Slide& s) { return s.question.has_value(); });
    EXPECT_GE(questions, 5);
    const std::string dir = testing::TempDir() + "lesson_tour_" + name;
    std::filesystem::remove_all(dir);
    std::string output;
    ASSERT_EQ(run_viewer("--lesson " + name + " --backend cpu --size 1024x768 --tour " + dir, output), 0) << output;
    const std::string page = slurp(dir + "/index.html");
    for (std::size_t i = 0; i < lesson.slides.size(); ++i) {
        char picture[32];
        std::snprintf(picture, sizeof picture, "slide%02zu.png", i + 1);
        EXPECT_GT(std::filesystem::file_size(dir + "/" + picture), 10000u) << picture;
        EXPECT_NE(page.find(picture), std::string::npos);
        if (!lesson.slides[i].question) continue;
        const auto& stated = lesson.slides[i].question->answer.value;
        ASSERT_TRUE(stated) << "slide " << i + 1 << " states no answer";
        EXPECT_NE(page.find("<summary>Answer</summary><p>" + answer_text(*stated)), std::string::npos) << picture;
        std::snprintf(picture, sizeof picture, "slide%02zu_answer.png", i + 1);
        EXPECT_GT(std::filesystem::file_size(dir + "/" + picture), 10000u) << picture;
    }
    EXPECT_NE(output.find("wrote " + std::to_string(lesson.slides.size()) + " slides"), std::string::npos) << output;
}

INSTANTIATE_TEST_SUITE_P(ViewerLesson, ShippedLesson, testing::ValuesIn(shipped_lessons()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// A lesson stating 4 for reduction v2's 8-way conflict at line 33 in step 3
// (AWrongStatedAnswerIsReported's slide): the tour writes no handout and
// names the slide, with a non-zero exit.
TEST(ViewerLesson, AWrongStatedAnswerStopsTheTour)
{
    json wrong = full_slide();
    wrong["schedule"] = "independent";
    wrong["warp_size"] = 32;
    wrong["question"]["answer"]["value"] = 4;
    const std::string file = testing::TempDir() + "lesson_wrong_answer.json";
    std::ofstream(file) << lesson_of({wrong}).dump();
    const std::string dir = testing::TempDir() + "lesson_tour_wrong_answer";
    std::filesystem::remove_all(dir);
    std::string output;
    EXPECT_EQ(run_viewer("--lesson " + file + " --backend cpu --size 1024x768 --tour " + dir, output), 1);
    EXPECT_NE(output.find("slide 1, 'question.answer': the lesson says 4, the trace gives 8"), std::string::npos) << output;
    EXPECT_FALSE(std::filesystem::exists(dir + "/index.html"));
}

std::string student_lesson() { return (data_dir() / "tests" / "viewer" / "lessons" / "student_kernel.json").string(); }

// tests/viewer/lessons/student_kernel.json: reduction v3 (n = 4096, block
// 256), then a hand-in that keeps the strided index (strided_sum.cu) in v3's
// launch, then the two side by side. By hand, in step 1 (s = 1) 128 threads
// in 4 warps each load, load and store once: v3's lanes touch consecutive
// words (1-way, 12 wavefronts), the hand-in's lane t word 2t (lanes t and
// t + 16 share a bank: 2-way, 24). The lesson's stated answers say so and are
// checked against the traces; the file's kernel is the lab's last version,
// dropped on a slide of the lab's own and added again after.
TEST(ViewerLesson, AStudentsKernelBesideTheReference)
{
    REQUIRE_NVCC();
    const auto lesson = std::make_shared<const Lesson>(load_lesson(student_lesson()));
    App app = app_on_emulator();
    start_lesson(app, lesson, 1);
    EXPECT_STREQ(current_version(app).id, kUserVersionId);
    EXPECT_EQ(current_lab(app).versions.size(), all_labs()[app.sel.lab].versions.size() + 1);
    EXPECT_FALSE(app.compare_versions);
    EXPECT_EQ(answer_disagreement(app), "");
    show_slide(app, 2);
    EXPECT_STREQ(current_version(app).id, kUserVersionId);
    EXPECT_TRUE(app.compare_versions);
    ASSERT_TRUE(compared_version(app));
    EXPECT_STREQ(current_lab(app).versions[*compared_version(app)].id, "v3");
    EXPECT_EQ(answer_disagreement(app), "");
    const TracedRun* run = current_run(app);
    ASSERT_NE(run, nullptr);
    const TracedRun* reference = trace_of(app, *compared_version(app)).run ? &*trace_of(app, *compared_version(app)).run : nullptr;
    ASSERT_NE(reference, nullptr);
    EXPECT_EQ(wl::trace::first_differing_step(wl::trace::differing_steps(reference->block, run->block)), 1u);
    show_slide(app, 0);
    EXPECT_STREQ(current_version(app).id, "v3");
    EXPECT_FALSE(app.user_lab);
    EXPECT_EQ(answer_disagreement(app), "");
    show_slide(app, 1);
    EXPECT_STREQ(current_version(app).id, kUserVersionId);
}

TEST(ViewerLesson, AStudentsKernelRendersAsAHandout)
{
    REQUIRE_NVCC();
    const std::string dir = testing::TempDir() + "lesson_tour_student";
    std::filesystem::remove_all(dir);
    std::string output;
    ASSERT_EQ(run_viewer("--lesson " + student_lesson() + " --backend cpu --size 1024x768 --tour " + dir, output), 0) << output;
    const std::string page = slurp(dir + "/index.html");
    EXPECT_NE(page.find("2. reduction strided_sum from "), std::string::npos) << page;
    EXPECT_NE(page.find("strided_sum.cu in v3's launch, step 1</h2>"), std::string::npos) << page;
    EXPECT_NE(page.find("step 1 beside v3</h2>"), std::string::npos) << page;
    for (const char* picture : {"slide01.png", "slide02.png", "slide03.png", "slide03_answer.png"})
        EXPECT_GT(std::filesystem::file_size(dir + "/" + picture), 10000u) << picture;
    EXPECT_NE(page.find("<summary>Answer</summary><p>24"), std::string::npos);
}

TEST(ViewerLesson, TheCommandLineRefusesInOneLine)
{
    const std::string bad = testing::TempDir() + "lesson_cli_bad.json";
    std::ofstream(bad) << lesson_of({{{"lab", "reduction"}, {"version", "v1"}, {"caption", "c"}},
                                     {{"version", "v2"}, {"highlight", {3000}}, {"caption", "c"}}})
                              .dump();
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"--lesson " + bad, "slide 2, 'highlight': line 3000 is not in v2's source"},
             {"--lesson reduction --lab matmul", "--lesson chooses the labs"},
             {"--lesson reduction --slide 99", "--slide 99: the lesson has slides 1 to"},
             {"--slide 2", "--slide counts the slides of --lesson"},
             {"--lesson reductoin", "reductoin: cannot read it (a lesson is a JSON file, or a shipped lesson's name: coalescing, image, "
                                    "matmul, method, reduction, transfers, transpose) (did you mean 'reduction'?)"}}) {
        std::string output;
        EXPECT_EQ(run_viewer(args + " --screenshot " + testing::TempDir() + "lesson_cli.png", output), 2) << args;
        EXPECT_NE(output.find(says), std::string::npos) << args << ": " << output;
        EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
    }
}

}  // namespace
}  // namespace warplab::viewer
