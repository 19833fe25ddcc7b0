// A lesson's slides on a whole program's launches (viewer/app/lesson_programs.h)
// and a launch beside a lab's version: the program built and run once, each
// slide's launch found among those it made, the answers read from its traces;
// a launch it did not make is one line naming the slide and the field. Also
// the command line's --compare and nvcc's warnings about a program. Needs
// nvcc (skips, saying so, without it).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "labs/common/data_dir.h"
#include "viewer/app/app.h"
#include "viewer/app/lesson_player.h"
#include "viewer/app/lesson_programs.h"
#include "viewer/app/options.h"
#include "viewer/panels/panels.h"
#include "viewer/app/program_view.h"
#include "viewer/model/source_model.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/compare.h"

namespace warplab::viewer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#define REQUIRE_NVCC()                                                                  \
    do {                                                                                \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc for a program";   \
    } while (0)

fs::path lessons_folder() { return data_dir() / "tests" / "viewer" / "lessons"; }
std::string program_lesson() { return (lessons_folder() / "program.json").string(); }
std::string program_file() { return (lessons_folder() / "sum_of_squares.cu").string(); }

App app_on_emulator()
{
    App app;
    app.sel.backend = BackendChoice::Cpu;
    return app;
}

// The error starting the lesson throws, in one line; fails the test where it starts.
std::string start_error(const std::vector<json>& slides)
{
    const json doc = {{"title", "t"}, {"slides", slides}};
    App app = app_on_emulator();
    try {
        start_lesson(app, std::make_shared<const Lesson>(parse_lesson(doc, lessons_folder())));
    } catch (const LessonError& e) {
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "started: " << doc.dump();
    return {};
}

const TracedRun& compared_lab_run(App& app)
{
    const auto other = compared_lab_version(app);
    EXPECT_TRUE(other);
    const TraceSlot& slot = lab_version_trace(app, other->first, other->second);
    EXPECT_TRUE(slot.run) << slot.error;
    return *slot.run;
}

// tests/viewer/lessons/program.json on sum_of_squares.cu (n = 1000, blocks of
// 256: 4 blocks; launch 1 square, launch 2 block_sum). Its elements i % 7 - 3
// square to 9 4 1 0 1 4 9 (28 every 7): 142 * 28 + 9 + 4 + 1 + 0 + 1 + 4 for
// the last 6 = 3995, which the program prints. By hand: slide 1,
// square's one step: a warp loads 32 neighbouring ints, 128 bytes, 4 sectors.
// Slide 2, block_sum's step 1 (s = 1): 128 threads in 4 warps; lane t reads
// words 2t and 2t + 1 and writes 2t: lanes t and t + 16 are 32 words apart,
// one bank: 2-way, 3 accesses x 4 warps x 2 = 24 wavefronts. Slide 3, beside
// reduction v3 (block 256, step 1: lane t reads t and t + 128, 12
// wavefronts): step 0 is the same (each thread stores its element into
// partial[tid]), step 1 the first that differs. Slide 4, v3 itself, 1-way.
TEST(ViewerLessonProgram, SlidesShowTheProgramsLaunchesAndTheLabsVersions)
{
    REQUIRE_NVCC();
    const auto lesson = std::make_shared<const Lesson>(load_lesson(program_lesson()));
    App app = app_on_emulator();
    start_lesson(app, lesson);
    ASSERT_TRUE(app.program);
    ASSERT_TRUE(app.program->failure.empty()) << app.program->failure;
    EXPECT_EQ(app.program->run.exit_code, 0) << app.program->run.errors;
    EXPECT_NE(app.program->run.output.find("sum of squares 3995, expected 3995: correct"), std::string::npos) << app.program->run.output;
    EXPECT_EQ(current_lab(app).versions.at(app.sel.version).name, std::string("square"));
    EXPECT_EQ(answer_disagreement(app), "");
    EXPECT_EQ(slide_answer(app).value, 4.0);
    const std::shared_ptr<const ProgramLab> program = app.program;

    show_slide(app, 1);
    EXPECT_EQ(app.program, program);  // the same run, not a second one
    EXPECT_EQ(current_lab(app).versions.at(app.sel.version).name, std::string("block_sum"));
    EXPECT_EQ(app.sel.step, 1u);
    EXPECT_EQ(step_count(app), 10u);  // the load, 8 halvings (s = 1 .. 128), the atomicAdd
    EXPECT_EQ(answer_disagreement(app), "");
    EXPECT_EQ(slide_answer(app).value, 2.0);

    show_slide(app, 2);
    EXPECT_TRUE(app.compare_versions);
    EXPECT_EQ(answer_disagreement(app), "");
    EXPECT_EQ(slide_answer(app).value, 24.0);
    const TracedRun& v3 = compared_lab_run(app);
    ASSERT_TRUE(current_run(app));
    EXPECT_EQ(v3.steps.size(), 10u);
    EXPECT_EQ(v3.steps.at(1).shared_load.wavefronts + v3.steps.at(1).shared_store.wavefronts, 12u);
    EXPECT_EQ(wl::trace::first_differing_step(wl::trace::differing_steps(v3.block, current_run(app)->block)), 1u);

    show_slide(app, 3);  // the lab's own version: the program's lab gone, its traces dropped
    EXPECT_FALSE(app.program);
    EXPECT_STREQ(current_version(app).id, "v3");
    EXPECT_EQ(answer_disagreement(app), "");
    for (const auto& [key, slot] : app.traces) EXPECT_NE(key.lab, kProgramLabKey);
    show_slide(app, 2);  // and back: the same run, shown again
    EXPECT_EQ(app.program, program);
    EXPECT_EQ(answer_disagreement(app), "");
}

// A program shown and closed again (a lesson's program slide, then a lab's):
// the labs' selection comes back as it was, the GPU backend with it; the
// program's launches were shown on the emulator, as the program ran.
TEST(ViewerLessonProgram, ClosingAProgramRestoresTheLabsSelection)
{
    REQUIRE_NVCC();
    App app;
    app.sel.lab = 2, app.sel.version = 1, app.sel.backend = BackendChoice::Gpu;
    show_program(app, run_program(wl::cudart::parse_run_arguments({program_file()})));
    EXPECT_EQ(app.sel.backend, BackendChoice::Cpu);
    EXPECT_EQ(current_lab(app).versions.size(), 2u);  // square's launch and block_sum's
    close_program(app);
    EXPECT_FALSE(app.program);
    EXPECT_EQ(app.sel.lab, 2u);
    EXPECT_EQ(app.sel.version, 1u);
    EXPECT_EQ(app.sel.backend, BackendChoice::Gpu);
}

// A launch named by its number that the kernels the slides name leave
// unwatched (slide 1 names square's, so block_sum's would not be traced):
// the program runs again watching it too.
TEST(ViewerLessonProgram, ALaunchByNumberIsWatchedToo)
{
    REQUIRE_NVCC();
    const json doc = {{"title", "t"},
                      {"slides", {{{"run", "sum_of_squares.cu"}, {"launch", "square"}, {"caption", "a"}}, {{"launch", 2}, {"caption", "b"}}}}};
    App app = app_on_emulator();
    start_lesson(app, std::make_shared<const Lesson>(parse_lesson(doc, lessons_folder())), 1);
    EXPECT_EQ(current_lab(app).versions.at(app.sel.version).name, std::string("block_sum"));
    EXPECT_EQ(step_count(app), 10u);
    show_slide(app, 0);
    EXPECT_EQ(current_lab(app).versions.at(app.sel.version).name, std::string("square"));
}

// What the program did not make, or a program that does not build: one line
// naming the slide and the field.
TEST(ViewerLessonProgram, ALaunchThatDoesNotExistIsOneLine)
{
    REQUIRE_NVCC();
    const json run = {{"run", "sum_of_squares.cu"}, {"caption", "c"}};
    const auto with = [&](const json& launch) {
        json slide = run;
        slide["launch"] = launch;
        return slide;
    };
    const std::string file = program_file();
    EXPECT_EQ(start_error({run, with(3)}), "slide 2, 'launch': " + file + ": the program made 2 launches");
    EXPECT_EQ(start_error({run, with("block_sum:2")}), "slide 2, 'launch': " + file + ": the program launched block_sum 1 time");
    EXPECT_EQ(start_error({with("reduce")}),
              "slide 1, 'launch': " + file + ": the program launched no reduce (its kernels: block_sum, square)");
    const fs::path broken = fs::path(testing::TempDir()) / "lesson_broken_program.cu";
    std::ofstream(broken) << "__global__ void k(int* p) { p[0] = undeclared_name; }\nint main() { k<<<1, 1>>>(nullptr); }\n";
    const std::string said = start_error({{{"run", broken.string()}, {"caption", "c"}}});
    EXPECT_EQ(said.rfind("slide 1, 'run': " + broken.string() + " did not run: ", 0), 0u) << said;
    EXPECT_NE(said.find("undeclared_name"), std::string::npos) << said;
}

std::optional<Options> parse(std::vector<std::string> args)
{
    std::vector<char*> argv{const_cast<char*>("warplab-viewer")};
    for (std::string& a : args) argv.push_back(a.data());
    return parse_options(int(argv.size()), argv.data());
}

// --compare pairs a --file kernel with a version other than the one whose
// launch it takes: strided_sum.cu (a hand-in that keeps v2's strided index)
// in v3's launch beside v2, where --compare-versions alone sets it beside v3;
// and a lab's version beside one that is not the one before it.
TEST(ViewerLessonProgram, CompareSetsAFilesKernelBesideAnotherVersion)
{
    REQUIRE_NVCC();
    const std::string file = (data_dir() / "tests/cli/kernels/strided_sum.cu").string();
    App app = app_on_emulator();
    apply_options(app, *parse({"--lab", "reduction", "--version", "v3", "--file", file, "--compare", "v2", "--backend", "cpu"}));
    EXPECT_STREQ(current_version(app).id, kUserVersionId);
    EXPECT_TRUE(app.compare_versions);
    ASSERT_TRUE(compared_version(app));
    EXPECT_STREQ(current_lab(app).versions[*compared_version(app)].id, "v2");  // not v3, the version it stands in for
    // The hand-in keeps v2's strided index: beside v2 the same accesses at every step, beside v3 not from step 1 on.
    const auto first_difference = [](App& shown) {
        const TraceSlot& before = trace_of(shown, *compared_version(shown));
        const TraceSlot& after = current_trace(shown);
        EXPECT_TRUE(before.run && after.run);
        return wl::trace::first_differing_step(wl::trace::differing_steps(before.run->block, after.run->block));
    };
    EXPECT_EQ(first_difference(app), std::nullopt);
    App own = app_on_emulator();
    apply_options(own, *parse({"--lab", "reduction", "--version", "v3", "--file", file, "--compare-versions", "--backend", "cpu"}));
    EXPECT_STREQ(current_lab(own).versions[*compared_version(own)].id, "v3");
    EXPECT_EQ(first_difference(own), 1u);
    // A lab's version beside another than the one before it.
    App lab = app_on_emulator();
    apply_options(lab, *parse({"--lab", "reduction", "--version", "v4", "--compare", "v2", "--backend", "cpu"}));
    EXPECT_STREQ(current_lab(lab).versions[*compared_version(lab)].id, "v2");
}

// The command line's refusals, each one line.
TEST(ViewerLessonProgram, CompareRefusesInOneLine)
{
    const std::string program = program_file();
    const auto refusal = [](std::vector<std::string> args) -> std::string {
        try {
            const auto o = parse(args);
            App app = app_on_emulator();
            apply_options(app, *o);
        } catch (const UsageError& e) {
            return e.what();
        }
        return "accepted";
    };
    EXPECT_EQ(refusal({"--lab", "reduction", "--compare", "v99"}).rfind("--compare: unknown version 'v99' of lab reduction to compare with", 0), 0u);
    EXPECT_EQ(refusal({"--lab", "reduction", "--version", "v3", "--compare", "v3"}).rfind("--compare v3 is the version shown", 0), 0u);
    EXPECT_EQ(refusal({"--lab", "transfers", "--compare", "v2"}).rfind("--compare: lab transfers's versions are host programs", 0), 0u);
    EXPECT_EQ(refusal({"--lesson", "reduction", "--compare", "v2"}), "--lesson's slides say what they compare: give no --compare with it");
    EXPECT_EQ(refusal({"--compare", "v3", "--run", program}), "--compare v3 with --run names a lab's version to set beside the launch: give --lab too");
    EXPECT_EQ(refusal({"--lab", "reduction", "--run", program}).rfind("--run shows the program's own launches", 0), 0u);
}

// A program's launch beside a lab's version from the command line, rendered
// as a user runs it: the compare panel's table on screen at a projector's size.
TEST(ViewerLessonProgram, ALaunchBesideALabsVersionOnScreen)
{
    REQUIRE_NVCC();
    App app = app_on_emulator();
    apply_options(app, *parse({"--lab", "reduction", "--compare", "v3", "--launch", "2", "--step", "1", "--run", program_file()}));
    ASSERT_TRUE(app.program);
    EXPECT_TRUE(app.compare_versions);
    const TracedRun& v3 = compared_lab_run(app);
    EXPECT_EQ(wl::trace::first_differing_step(wl::trace::differing_steps(v3.block, current_run(app)->block)), 1u);

    const std::string png = testing::TempDir() + "viewer_launch_beside_v3.png", layout_file = png + ".json";
    const std::string command = std::string("SDL_VIDEODRIVER=offscreen ") + WARPLAB_VIEWER_EXE + " --size 1024x768 --presenter --step 1 --lab reduction --compare v3 --launch 2 --screenshot " + png +
                                " --layout-json " + layout_file + " --run " + program_file() + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(layout_file);
    const json layout = json::parse(in);
    EXPECT_TRUE(layout.at("regions").contains("compare.table")) << layout.dump();
}

// nvcc's warnings about a program reach the window as a --file kernel's do:
// the status line names the first with its file and line, and the source
// panel marks the line. The kernel counts down with an unsigned s >= 0
// (always true: nvcc warns, at line 5) and leaves the loop by a break.
TEST(ViewerLessonProgram, NvccsWarningsAboutAProgramAreShown)
{
    REQUIRE_NVCC();
    const fs::path file = fs::path(testing::TempDir()) / "countdown_program.cu";
    std::ofstream(file) << "// counts down from n\n"
                           "__global__ void countdown(int* out, unsigned n)\n"
                           "{\n"
                           "    int steps = 0;\n"
                           "    for (unsigned s = n; s >= 0; --s) {\n"
                           "        if (s == 0) break;\n"
                           "        ++steps;\n"
                           "    }\n"
                           "    out[threadIdx.x] = steps;\n"
                           "}\n"
                           "int main()\n"
                           "{\n"
                           "    int* out;\n"
                           "    cudaMalloc(&out, 32 * sizeof(int));\n"
                           "    countdown<<<1, 32>>>(out, 5);\n"
                           "    cudaDeviceSynchronize();\n"
                           "    cudaFree(out);\n"
                           "    return 0;\n"
                           "}\n";
    App app = app_on_emulator();
    open_program(app, wl::cudart::parse_run_arguments({file.string()}));
    ASSERT_TRUE(app.program->failure.empty()) << app.program->failure;
    EXPECT_NE(app.program->warnings.find("countdown_program.cu(5): warning"), std::string::npos) << app.program->warnings;
    // One warning, though nvcc gives it twice (its device and host passes both compile the kernel).
    const std::string warning = warning_text(app);
    EXPECT_EQ(warning.rfind("warning (1): nvcc: ", 0), 0u) << warning;
    EXPECT_NE(warning.find("countdown_program.cu(5): warning"), std::string::npos) << warning;
    const auto lines = warned_lines(current_trace(app).run->result.compile_warnings, current_version(app).file);
    ASSERT_TRUE(lines.count(5)) << current_trace(app).run->result.compile_warnings;
    EXPECT_NE(lines.at(5).find("unsigned"), std::string::npos) << lines.at(5);
    EXPECT_EQ(warned_legend(lines), "nvcc warns at line 5 (hover it)");  // the source panel's, whichever lines are in view
    EXPECT_EQ(warned_legend({{5, "a"}, {12, "b"}}), "nvcc warns at lines 5, 12 (hover them)");
    // The same program built again comes from the cache, with its warnings.
    App again = app_on_emulator();
    open_program(again, wl::cudart::parse_run_arguments({file.string()}));
    EXPECT_EQ(again.program->warnings, app.program->warnings);
    // A program nvcc does not warn about shows none.
    App quiet = app_on_emulator();
    open_program(quiet, wl::cudart::parse_run_arguments({program_file()}));
    EXPECT_EQ(quiet.program->warnings, "");
    EXPECT_EQ(warning_text(quiet), "");
}

}  // namespace
}  // namespace warplab::viewer
