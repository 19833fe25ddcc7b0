// --run in the viewer: a whole program built and run as `warplab run` runs it
// (the same code, warplab/cudart/program_run.h), its launches listed where a
// lab lists its versions and each watched launch stepped through as a lab's
// trace; a program that does not build or faults is a message, not a crash.
// Needs nvcc (skips, saying so, without it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "labs/common/data_dir.h"
#include "viewer/app/app.h"
#include "viewer/app/options.h"
#include "viewer/panels/panels.h"
#include "viewer/app/program_view.h"
#include "warplab/ptx/ptx.h"

namespace warplab::viewer {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_RUN()                                                                                   \
    do {                                                                                                \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc for --run";                       \
    } while (0)

std::string program_file(const char* name) { return (data_dir() / "tests/run/programs" / name).string(); }

// The programs' builds are cached where warplab run caches them: a second run of the tests reuses them.
wl::cudart::RunArguments arguments(std::vector<std::string> args) { return wl::cudart::parse_run_arguments(args); }

// reduction.cu adds 100000 ints in passes of 512 per block of 256 threads:
// 196 blocks, then 1 (two launches of reduce_pass<256>). Watching both, each
// is a version. Block 0 of either loads and stores its partial sum (step 0,
// lines 12-14), halves 8 times (steps 1-8, line 17: strides 128 .. 1) and
// thread 0 writes it (step 9, line 20): 10 steps, 256 threads at step 0.
TEST(ViewerProgram, WatchedLaunchesAreVersionsSteppedThroughFromTheProgramsFile)
{
    REQUIRE_RUN();
    App app;
    open_program(app, arguments({program_file("reduction.cu"), "--watch", "reduce_pass:1,reduce_pass:2"}));
    ASSERT_TRUE(app.program);
    const ProgramLab& p = *app.program;
    ASSERT_TRUE(p.failure.empty()) << p.failure;
    EXPECT_EQ(p.run.exit_code, 0);
    EXPECT_NE(p.run.output.find("reduction: 2 passes"), std::string::npos) << p.run.output;
    ASSERT_EQ(p.run.launches.size(), 2u);
    EXPECT_EQ(p.run.launches[0].grid[0], 196u);
    EXPECT_EQ(p.run.launches[1].grid[0], 1u);
    // Both made by the host loop's line 42, as the list's "launched at" column shows them.
    EXPECT_EQ(short_host_line(p.run.launches[0]), "reduction.cu:42");
    EXPECT_EQ(short_host_line(p.run.launches[1]), "reduction.cu:42");
    ASSERT_EQ(current_lab(app).versions.size(), 2u);
    EXPECT_STREQ(current_version(app).id, "launch1");
    const TraceSlot& slot = current_trace(app);
    ASSERT_TRUE(slot.run) << slot.error;
    EXPECT_EQ(step_count(app), 10u);
    EXPECT_EQ(slot.run->steps.at(0).active_threads, 256u);
    std::set<std::uint32_t> lines;
    for (const auto& e : slot.run->block.events)
        if (e.space != wl::trace::Space::None) lines.insert(e.site.line);
    EXPECT_EQ(lines, (std::set<std::uint32_t>{12, 13, 14, 17, 20}));
    // The source panel reads the program's own file under the name the trace gives it.
    const SourceFile& source = app.sources.get(current_version(app).file);
    ASSERT_TRUE(source.found) << source.path;
    EXPECT_EQ(source.hash, slot.run->block.events.front().site.file_hash);
    EXPECT_NE(source.lines.at(16).find("partial[tid] += partial[tid + stride]"), std::string::npos);
    EXPECT_NE(status_text(app).find("launch 1 of 2"), std::string::npos) << status_text(app);
    EXPECT_NE(status_text(app).find("exited with 0"), std::string::npos) << status_text(app);
    EXPECT_FALSE(program_failed(app));
    // The second launch: its one block of 256 threads over the 196 partial sums, the same 10 steps.
    select_version(app, 1);
    ASSERT_TRUE(current_trace(app).run);
    EXPECT_EQ(current_trace(app).run->result.grid_dim, (std::vector<unsigned>{1, 1, 1}));
    EXPECT_EQ(step_count(app), 10u);
    EXPECT_EQ(version_of_launch(p, 2), std::optional<std::size_t>(1));
    // Another schedule is not this program's run: a message, not a rerun.
    Selection s = app.sel;
    s.schedule = wl::emu::Schedule::Lockstep;
    select_settings(app, s);
    EXPECT_FALSE(current_trace(app).run);
    EXPECT_NE(current_trace(app).error.find("as the program made it"), std::string::npos) << current_trace(app).error;
}

// By default only the first launch of each kernel is watched (warplab run's
// rule): launch 2 is listed but is no version.
TEST(ViewerProgram, UnwatchedLaunchIsListedNotShown)
{
    REQUIRE_RUN();
    App app;
    open_program(app, arguments({program_file("reduction.cu")}));
    const ProgramLab& p = *app.program;
    ASSERT_EQ(p.run.launches.size(), 2u);
    EXPECT_EQ(current_lab(app).versions.size(), 1u);
    EXPECT_FALSE(version_of_launch(p, 2));
}

// mistakes.cu's "fault" reads in[100] of 100 ints at line 10 (thread 99 of
// the one block): the launch is listed as faulted, its steps up to the fault
// are shown, the source marks line 10, and the status line says so in one
// line with the program's exit code (1: it saw cudaErrorLaunchFailure).
TEST(ViewerProgram, FaultIsTheLaunchsMessageAndLine)
{
    REQUIRE_RUN();
    App app;
    open_program(app, arguments({program_file("mistakes.cu"), "--", "fault"}));
    const ProgramLab& p = *app.program;
    ASSERT_TRUE(p.failure.empty()) << p.failure;
    EXPECT_EQ(p.run.exit_code, 1);
    EXPECT_NE(p.run.errors.find("out-of-bounds load"), std::string::npos) << p.run.errors;
    const TraceSlot& slot = current_trace(app);
    EXPECT_TRUE(slot.fault);
    EXPECT_EQ(slot.fault_line, 10u);
    EXPECT_EQ(slot.fault_file, current_version(app).file);
    const std::string status = status_text(app);
    EXPECT_NE(status.find("launch 1 of 1 (shift_left) faulted: kernel fault"), std::string::npos) << status;
    EXPECT_NE(status.find("exited with 1"), std::string::npos) << status;
    EXPECT_EQ(status.find('\n'), std::string::npos) << status;
    EXPECT_TRUE(program_failed(app));
}

// A program nvcc cannot compile: one version carrying nvcc's message, a
// one-line status naming the error, no steps; never a throw.
TEST(ViewerProgram, BuildFailureIsAMessage)
{
    REQUIRE_RUN();
    const fs::path broken = fs::path(testing::TempDir()) / "viewer_broken_program.cu";
    std::ofstream(broken) << "#include <cstdio>\n__global__ void k(int* p) { p[0] = undeclared_name; }\nint main() { k<<<1, 1>>>(nullptr); }\n";
    App app;
    open_program(app, arguments({broken.string()}));
    const ProgramLab& p = *app.program;
    EXPECT_NE(p.failure.find("undeclared_name"), std::string::npos) << p.failure;
    ASSERT_EQ(current_lab(app).versions.size(), 1u);
    EXPECT_EQ(step_count(app), 0u);
    EXPECT_FALSE(current_trace(app).run);
    EXPECT_NE(current_trace(app).error.find("undeclared_name"), std::string::npos);
    const std::string status = status_text(app);
    EXPECT_NE(status.find("viewer_broken_program.cu did not run: "), std::string::npos) << status;
    EXPECT_NE(status.find("error"), std::string::npos) << status;
    EXPECT_EQ(status.find('\n'), std::string::npos) << status;
    fs::remove(broken);
}

// The viewer as a user runs it, headless, at a projector's and a desk's size:
// the launches panel holds its table, and step 3's line (17) is drawn inside
// the source panel's rectangle, on screen.
TEST(ViewerProgram, ScreenshotShowsTheLaunchesAndTheStepsLine)
{
    REQUIRE_RUN();
    for (const std::string size : {"1024x768", "1920x1080"}) {
        const std::string png = testing::TempDir() + "viewer_program_" + size + ".png", json = png + ".json";
        const std::string command = std::string("SDL_VIDEODRIVER=offscreen ") + WARPLAB_VIEWER_EXE + " --size " + size +
                                    " --step 3 --screenshot " + png + " --layout-json " + json + " --run " +
                                    program_file("reduction.cu") + " > /dev/null 2>&1";
        ASSERT_EQ(std::system(command.c_str()), 0) << command;
        std::ifstream in(json);
        const nlohmann::json layout = nlohmann::json::parse(in);
        EXPECT_NE(layout.at("status").at("text").get<std::string>().find("launch 1 of 2"), std::string::npos) << size;
        const auto& regions = layout.at("regions");
        EXPECT_TRUE(regions.contains("launches.table")) << size;
        EXPECT_TRUE(regions.contains("launches.output")) << size;
        ASSERT_TRUE(regions.contains("source.first_step_line")) << size;
        const auto& line = regions.at("source.first_step_line");
        const auto& source = layout.at("panels").at("source");
        EXPECT_GE(line[1].get<float>(), source[1].get<float>()) << size;
        EXPECT_LE(line[1].get<float>() + line[3].get<float>(), source[1].get<float>() + source[3].get<float>()) << size;
        EXPECT_EQ(layout.at("step").get<int>(), 3) << size;
    }
}

// A program whose file's name is long (reduction.cu copied as
// reduction_with_a_rather_long_name.cu: 36 characters, and ":42"): the
// launches table's last column, the host line, is cut to the room the other
// columns leave it ("…" in its middle, the full path on hover). At a desk's
// 1920x1080 the launches panel is 499 pixels wide and the host line starts
// some 350 in, where the whole name (about 280 pixels) ran past the edge
// behind a sideways scroll: now the first launch's host line ends inside the
// panel. (At 1024x768 the other columns leave too little room: "…:42".)
TEST(ViewerProgram, ALongHostLineFitsTheLaunchesPanel)
{
    REQUIRE_RUN();
    const fs::path program = fs::path(testing::TempDir()) / "reduction_with_a_rather_long_name.cu";
    fs::copy_file(program_file("reduction.cu"), program, fs::copy_options::overwrite_existing);
    const std::string png = testing::TempDir() + "viewer_long_host_line.png", json = png + ".json";
    const std::string command = std::string("SDL_VIDEODRIVER=offscreen ") + WARPLAB_VIEWER_EXE + " --size 1920x1080 --screenshot " + png +
                                " --layout-json " + json + " --run " + program.string() + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(json);
    const nlohmann::json layout = nlohmann::json::parse(in);
    ASSERT_TRUE(layout.at("regions").contains("launches.host_line"));
    const auto& line = layout.at("regions").at("launches.host_line");
    const auto& panel = layout.at("panels").at("versions");
    EXPECT_GE(line[0].get<float>(), panel[0].get<float>());
    EXPECT_GT(line[2].get<float>(), 0.0f);
    EXPECT_LE(line[0].get<float>() + line[2].get<float>(), panel[0].get<float>() + panel[2].get<float>()) << line << " in " << panel;
    fs::remove(program);
}

std::optional<Options> parse(std::vector<const char*> args)
{
    args.insert(args.begin(), "warplab-viewer");
    return parse_options(int(args.size()), const_cast<char**>(args.data()));
}

// --run takes the rest of the line as `warplab run` reads it; what comes
// before it is the viewer's.
TEST(ViewerProgram, RunTakesTheRestOfTheLine)
{
    const std::string file = program_file("vector_add.cu");
    const auto o = parse({"--size", "1024x768", "--launch", "1", "--run", file.c_str(), "-DOFF_BY_ONE", "-I", "inc", "--", "37"});
    ASSERT_TRUE(o && o->run);
    EXPECT_EQ(o->width, 1024);
    EXPECT_EQ(o->launch, std::optional<unsigned>(1));
    EXPECT_EQ(o->run->program.sources, std::vector<std::string>{file});
    EXPECT_EQ(o->run->program.defines, std::vector<std::string>{"OFF_BY_ONE"});
    EXPECT_EQ(o->run->program.include_dirs, std::vector<std::string>{"inc"});
    EXPECT_EQ(o->run->program_args, std::vector<std::string>{"37"});
    EXPECT_THROW(parse({"--run"}), UsageError);                                     // no file
    EXPECT_THROW(parse({"--run", "no_such_file.cu"}), UsageError);                  // cannot be read
    EXPECT_THROW(parse({"--launch", "2"}), UsageError);                             // --launch without --run
    EXPECT_THROW(parse({"--lab", "reduction", "--run", file.c_str()}), UsageError);  // a lab and a program
    EXPECT_THROW(parse({"--run", file.c_str(), "--json", "out"}), UsageError);        // warplab run's, not the viewer's
}

}  // namespace
}  // namespace warplab::viewer
