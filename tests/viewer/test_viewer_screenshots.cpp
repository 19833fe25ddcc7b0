// The viewer as a user runs it, headless: each test renders screenshots with
// the real executable and checks their pixels inside the panel rectangles the
// viewer reports (--layout-json), against the palette it reports.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "labs/common/png_io.h"
#include "viewer/model/layout.h"
#include "viewer/platform/platform.h"
#include "labs/common/data_dir.h"
#include "labs/common/lab.h"
#include "viewer/model/source_model.h"
#include "warplab/ptx/ptx.h"

namespace warplab::viewer {
namespace {

struct Shot {
    int exit_code = -1;
    std::string output;    // stdout and stderr
    Image image;
    nlohmann::json layout;
};

std::string slurp(const std::string& path)
{
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Files of this test alone: ctest runs the tests in parallel.
std::string temp_file(const std::string& suffix)
{
    return testing::TempDir() + "viewer_" + testing::UnitTest::GetInstance()->current_test_info()->name() + suffix;
}

int run(const std::string& args, std::string& output)
{
    const std::string out = temp_file("_out.txt");
    const int status = std::system((std::string(WARPLAB_VIEWER_EXE) + " " + args + " > " + out + " 2>&1").c_str());
    output = slurp(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Shot screenshot(const std::string& args)
{
    const std::string png = temp_file(".png"), json = temp_file(".json");
    std::remove(png.c_str());
    Shot s;
    s.exit_code = run(args + " --screenshot " + png + " --layout-json " + json, s.output);
    if (s.exit_code != 0) return s;
    s.image = read_png(png);
    s.layout = nlohmann::json::parse(slurp(json));
    return s;
}

struct Box {
    int x0, y0, x1, y1;
};

Box region(const Shot& s, const std::string& name)
{
    const auto& r = s.layout.at("regions").at(name);
    return {int(r[0].get<float>()), int(r[1].get<float>()), int(r[0].get<float>() + r[2].get<float>()),
            int(r[1].get<float>() + r[3].get<float>())};
}

// Pixels of exactly this colour (within 2 per channel: the software renderer is exact inside shapes).
std::size_t count_colour(const Image& img, Box b, const nlohmann::json& rgb)
{
    std::size_t n = 0;
    for (int y = std::max(0, b.y0); y < std::min(img.height, b.y1); ++y)
        for (int x = std::max(0, b.x0); x < std::min(img.width, b.x1); ++x) {
            const std::uint8_t* p = &img.rgba[(std::size_t(y) * img.width + x) * 4];
            bool same = true;
            for (int c = 0; c < 3; ++c) same &= std::abs(int(p[c]) - rgb[c].get<int>()) <= 2;
            n += same;
        }
    return n;
}

std::size_t conflict_pixels(const Shot& s)
{
    std::size_t n = 0;
    const auto& scale = s.layout.at("palette").at("conflict");
    for (std::size_t level = 1; level < scale.size(); ++level) n += count_colour(s.image, region(s, "banks.grid"), scale[level]);
    return n;
}

// v2 step 1: the worst load is a 2-way conflict: the bank panel shows the
// conflict colours. v3 step 1 reads consecutive words: only the no-conflict colour.
TEST(ViewerScreenshots, ConflictColourInV2BanksNotInV3)
{
    const Shot v2 = screenshot("--lab reduction --version v2 --step 1 --backend cpu");
    ASSERT_EQ(v2.exit_code, 0) << v2.output;
    EXPECT_EQ(v2.image.width, 1920);
    EXPECT_EQ(v2.image.height, 1080);
    EXPECT_GT(conflict_pixels(v2), 1000u);

    const Shot v3 = screenshot("--lab reduction --version v3 --step 1 --backend cpu");
    ASSERT_EQ(v3.exit_code, 0) << v3.output;
    EXPECT_EQ(conflict_pixels(v3), 0u);
    EXPECT_GT(count_colour(v3.image, region(v3, "banks.grid"), v3.layout["palette"]["conflict"][0]), 1000u);
}

// Step 1: v1's active threads are every other lane of every warp, and all 8
// warps are outlined as partially active; v3's are warps 0-3 whole, none outlined.
TEST(ViewerScreenshots, ActiveCellsAndPartialWarpsOfV1AndV3)
{
    const Shot v1 = screenshot("--lab reduction --version v1 --step 1 --backend cpu");
    const Shot v3 = screenshot("--lab reduction --version v3 --step 1 --backend cpu");
    ASSERT_EQ(v1.exit_code, 0) << v1.output;
    ASSERT_EQ(v3.exit_code, 0) << v3.output;
    const auto bands = [](const Shot& s) {  // active pixels in each eighth of the grid, top to bottom: one band a warp
        const Box g = region(s, "threads.grid");
        std::vector<std::size_t> out;
        for (int w = 0; w < 8; ++w) {
            const int h = (g.y1 - g.y0 - 8) / 8;
            out.push_back(count_colour(s.image, {g.x0, g.y0 + 4 + w * h + 1, g.x1, g.y0 + 4 + (w + 1) * h - 1},
                                       s.layout["palette"]["active"]));
        }
        return out;
    };
    const auto a1 = bands(v1), a3 = bands(v3);
    for (int w = 0; w < 8; ++w) {
        EXPECT_GT(a1[w], 0u) << "v1 warp " << w;
        if (w < 4)
            EXPECT_GT(a3[w], a1[w]) << "v3 warp " << w << " is whole, v1's half";
        else
            EXPECT_EQ(a3[w], 0u) << "v3 warp " << w;
    }
    EXPECT_GT(count_colour(v1.image, region(v1, "threads.grid"), v1.layout["palette"]["partial_outline"]), 500u);
    EXPECT_EQ(count_colour(v3.image, region(v3, "threads.grid"), v3.layout["palette"]["partial_outline"]), 0u);
}

// v5-racy under the independent schedule: the emulator reports the data race;
// the screenshot still comes out, with the message in a banner and the status.
// Under lockstep the same kernel runs.
TEST(ViewerScreenshots, KernelFaultIsShownNotFatal)
{
    const Shot racy = screenshot("--lab reduction --version v5-racy --backend cpu --schedule independent");
    ASSERT_EQ(racy.exit_code, 0) << racy.output;
    EXPECT_NE(racy.output.find("kernel fault"), std::string::npos) << racy.output;
    EXPECT_TRUE(racy.layout["status"]["fault"].get<bool>());
    EXPECT_NE(racy.layout["status"]["error"].get<std::string>().find("data race"), std::string::npos);
    EXPECT_GT(count_colour(racy.image, region(racy, "fault.banner"), racy.layout["palette"]["fault_banner"]), 20000u);

    const Shot lockstep = screenshot("--lab reduction --version v5-racy --backend cpu --schedule lockstep --step 3");
    ASSERT_EQ(lockstep.exit_code, 0) << lockstep.output;
    EXPECT_FALSE(lockstep.layout["status"]["fault"].get<bool>());
    EXPECT_EQ(lockstep.layout["regions"].count("fault.banner"), 0u);
}

// Presenter mode: fewer panels, and a big step counter in the header. At
// 720p the source takes the whole height (over 70 % of the window) beside one
// arrangement at a time, named in the header: the step's threads and values
// first, the banks one V away, in the "memory" arrangement.
TEST(ViewerScreenshots, PresenterModeHasABigStepCounter)
{
    const Shot p = screenshot("--lab reduction --version v2 --step 3 --backend cpu --presenter --size 1280x720");
    ASSERT_EQ(p.exit_code, 0) << p.output;
    EXPECT_EQ(p.image.width, 1280);
    EXPECT_TRUE(p.layout["presenter"].get<bool>());
    EXPECT_EQ(p.layout["panels"].count("versions"), 0u);
    EXPECT_EQ(p.layout["panels"].count("threads"), 1u);
    EXPECT_EQ(p.layout["panels"].count("banks"), 0u);
    EXPECT_GT(p.layout["panels"]["source"][3].get<float>(), 0.7f * 720);
    EXPECT_EQ(p.layout["regions"].count("header.views"), 1u);
    LayoutNeeds memory;
    memory.view = 1;
    EXPECT_TRUE(presenter_layout(1280, 720, p.layout["panels"]["header"][3], p.layout["panels"]["status"][3], memory).has(Panel::Banks));
    const Box counter = region(p, "header.step_counter");
    EXPECT_GT(counter.y1 - counter.y0, p.image.height / 25);  // 4 % of the screen height: the back row reads it
    EXPECT_GT(count_colour(p.image, counter, p.layout["palette"]["active"]), 300u);
}

// Bad arguments: exit code 2 and one line naming the problem.
TEST(ViewerScreenshots, BadArgumentsExitTwoWithOneLine)
{
    const std::string png = " --screenshot " + temp_file("_never.png");
    for (const std::string& args : std::vector<std::string>{"--lab nosuchlab" + png, "--version v99" + png, "--size 12x" + png,
                                   "--version v2 --step 99" + png, "--schedule sideways" + png, "--layout-json never.json",
                                   "--tour " + temp_file("_never") + png, "--warp-size 48" + png,
                                   "--warp-size 64 --backend gpu" + png, "--n 0" + png, "--n -5" + png, "--shape 7," + png,
                                   "--shape 1,2,3,4" + png, "--n 5 --shape 8" + png, "--block 16x" + png,
                                   "--version v3 --without-barrier 25 --backend cpu" + png, "--image " + temp_file("_none.png") + png,
                                   "--lab image --image " + temp_file("_none.png") + png}) {
        std::string out;
        EXPECT_EQ(run(args, out), 2) << args;
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << ": " << out;
        EXPECT_EQ(out.rfind("warplab-viewer: error: ", 0), 0u) << args << ": " << out;
    }
}

// D's comparison, presenting at a projector's 1024x768 (a narrow panel: a
// cell's two values one above the other) and at 1920x1080 ("a → b"): reduction
// v2 -> v3 differ in steps 1 to 7 (shared wavefronts 24/12 -> 12/12 and so on,
// 2-way -> 1-way), so the table holds cells in the changed colour; v5 -> v6 make
// the same accesses (v6 unrolls v5's loop) and differ only in their lines,
// which are not coloured: none. The table takes the threads panel's column.
TEST(ViewerScreenshots, VersionsSideBySideColourWhatDiffers)
{
    for (const std::string size : {"1024x768", "1920x1080"}) {
        const std::string args = " --step 1 --compare-versions --presenter --backend cpu --size " + size;
        const Shot v3 = screenshot("--lab reduction --version v3" + args);
        ASSERT_EQ(v3.exit_code, 0) << v3.output;
        EXPECT_TRUE(v3.layout["panels"].contains("compare")) << size;
        EXPECT_FALSE(v3.layout["panels"].contains("threads")) << size;
        EXPECT_GT(count_colour(v3.image, region(v3, "compare.table"), v3.layout["palette"]["changed_line"]), 2000u) << size;
        const Shot v6 = screenshot("--lab reduction --version v6" + args);
        ASSERT_EQ(v6.exit_code, 0) << v6.output;
        EXPECT_EQ(count_colour(v6.image, region(v6, "compare.table"), v6.layout["palette"]["changed_line"]), 0u) << size;
    }
}

// The source panel's barrier switch, as --without-barrier sets it: reduction
// v5 with line 28's two __syncwarp() off. Under lockstep the rerun runs (no
// race: a warp's lanes read before any writes), its switch reads "off" and the
// banner says so; under the independent schedule the rerun's race is the
// threads panel's fault. Either way the status line says it is a modified
// run. Without the flag each barrier line has its switch, none off.
TEST(ViewerScreenshots, ABarrierSwitchedOffShowsTheModifiedRun)
{
    const Shot lockstep = screenshot("--lab reduction --version v5 --without-barrier 28 --schedule lockstep --presenter --size 1024x768 --backend cpu");
    ASSERT_EQ(lockstep.exit_code, 0) << lockstep.output;
    EXPECT_NE(lockstep.output.find("what if the barrier at line 28 of 05_unroll_last_warp.cuh were gone"), std::string::npos)
        << lockstep.output;
    EXPECT_TRUE(lockstep.layout["regions"].contains("source.barrier_off"));
    EXPECT_TRUE(lockstep.layout["regions"].contains("source.without_barrier"));
    EXPECT_FALSE(lockstep.layout["regions"].contains("fault.banner"));
    const Shot independent = screenshot("--lab reduction --version v5 --without-barrier 28 --presenter --size 1920x1080 --backend cpu");
    ASSERT_EQ(independent.exit_code, 0) << independent.output;
    EXPECT_NE(independent.output.find("data race on shared memory"), std::string::npos) << independent.output;
    EXPECT_TRUE(independent.layout["regions"].contains("fault.banner"));
    EXPECT_GT(count_colour(independent.image, region(independent, "source.barrier_off"), independent.layout["palette"]["fault_banner"]), 100u);
    const Shot written = screenshot("--lab reduction --version v5 --presenter --size 1920x1080 --backend cpu");
    ASSERT_EQ(written.exit_code, 0) << written.output;
    EXPECT_TRUE(written.layout["regions"].contains("source.barrier_switch"));
    EXPECT_FALSE(written.layout["regions"].contains("source.barrier_off"));
    EXPECT_EQ(written.output.find("what if"), std::string::npos) << written.output;
}

}  // namespace
}  // namespace warplab::viewer

namespace warplab::viewer {
namespace {

// The tour (what scripts/run.sh writes where there is no display): one picture
// per step of every version, one for a version that cannot run, and an index.
TEST(ViewerScreenshots, TourWritesEveryVersionAndStep)
{
    const std::string dir = temp_file("_tour");
    std::system(("rm -rf " + dir).c_str());
    std::string out;
    ASSERT_EQ(run("--lab reduction --backend cpu --size 800x450 --tour " + dir, out), 0) << out;
    EXPECT_NE(out.find("index.html"), std::string::npos) << out;
    EXPECT_FALSE(slurp(dir + "/index.html").empty());
    const Image first = read_png(dir + "/reduction_v1_step00.png");
    EXPECT_EQ(first.width, 800);
    EXPECT_NO_THROW(read_png(dir + "/reduction_v2_step09.png"));      // v2 has steps 0-9 at block 256
    EXPECT_NO_THROW(read_png(dir + "/reduction_v5-racy_failed.png"));  // the data race, under the independent schedule
    EXPECT_NO_THROW(read_png(dir + "/reduction_v10_step00.png"));  // bulk copies run on the emulator too
}

}  // namespace
}  // namespace warplab::viewer

namespace warplab::viewer {
namespace {

std::string test_kernel(const std::string& name) { return data_dir().string() + "/tests/cli/kernels/" + name; }

// A run the emulator finished with a warning shows it under the result, in
// the status panel; a clean run shows none. every_thread_stores writes the
// block's total from every thread, not only thread 0: the same bits from 8
// warps with nothing ordering them, so the emulator warns (one site:
// every_thread_stores.cu line 16) and the result stays right (v3's launch,
// int elements: the block's sum). cas_sum's atomicCAS loop and tree_sum run clean.
TEST(ViewerScreenshots, WarningsShownUnderTheResult)
{
    if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc for --file";
    const std::string as_v3 = "--lab reduction --version v3 --type int --backend cpu --size 1280x720 --file ";
    const Shot racy = screenshot(as_v3 + test_kernel("every_thread_stores.cu"));
    ASSERT_EQ(racy.exit_code, 0) << racy.output;
    const auto warnings = racy.layout["status"]["warnings"].get<std::vector<std::string>>();
    ASSERT_EQ(warnings.size(), 1u) << racy.layout["status"].dump();
    EXPECT_NE(warnings[0].find("plain stores of the same value"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("every_thread_stores.cu:16"), std::string::npos) << warnings[0];
    EXPECT_NE(racy.layout["status"]["text"].get<std::string>().find("correct"), std::string::npos);
    const Box line = region(racy, "status.warning");
    EXPECT_GT(count_colour(racy.image, line, racy.layout["palette"]["partial_outline"]), 50u);

    for (const std::string clean : {"cas_sum.cu", "tree_sum.cu --kernel tree_sum"}) {
        const Shot shot = screenshot(as_v3 + test_kernel(clean));
        ASSERT_EQ(shot.exit_code, 0) << shot.output;
        EXPECT_TRUE(shot.layout["status"]["warnings"].empty()) << clean << ": " << shot.layout["status"].dump();
        EXPECT_EQ(shot.layout["regions"].count("status.warning"), 0u) << clean;
    }
}

// --max-instructions reaches the viewer's emulator: reduction v1 at n = 2^20
// runs a loop of log2(256) = 8 rounds, well over 20 instructions a thread, so a
// budget of 20 stops it with the instruction-budget fault, shown as any fault
// is; the default budget runs it. A budget of 0 is refused, under the option's
// former name (--max-steps) too.
TEST(ViewerScreenshots, MaxInstructionsStopsTheTrace)
{
    const Shot cut = screenshot("--lab reduction --version v1 --backend cpu --max-instructions 20");
    ASSERT_EQ(cut.exit_code, 0) << cut.output;
    EXPECT_TRUE(cut.layout["status"]["fault"].get<bool>());
    EXPECT_NE(cut.layout["status"]["error"].get<std::string>().find("did not finish within 20 instructions"),
              std::string::npos)
        << cut.layout["status"].dump();
    const Shot whole = screenshot("--lab reduction --version v1 --backend cpu");
    ASSERT_EQ(whole.exit_code, 0) << whole.output;
    EXPECT_FALSE(whole.layout["status"]["fault"].get<bool>());
    std::string out;
    EXPECT_EQ(run("--max-instructions 0", out), 2) << out;
    EXPECT_EQ(run("--max-steps 0", out), 2) << out;
}

}  // namespace
}  // namespace warplab::viewer

namespace warplab::viewer {
namespace {

// Runs of the active colour along the middle of a grid's first row (a grid of
// `warps` rows, drawn 4 pixels inside its region): one run an active cell
// where active cells have idle ones between them.
std::size_t active_runs_in_first_row(const Shot& s, const std::string& grid, unsigned warps)
{
    const Box g = region(s, grid);
    const int y = g.y0 + 4 + (g.y1 - g.y0 - 8) / int(warps) / 2;
    const auto& rgb = s.layout["palette"]["active"];
    std::size_t runs = 0;
    bool in_run = false;
    for (int x = g.x0; x < g.x1; ++x) {
        const bool active = count_colour(s.image, {x, y, x + 1, y + 1}, rgb) == 1;
        runs += active && !in_run;
        in_run = active;
    }
    return runs;
}

// reduction v1, step 1: the 128 even threads of 256 add. At warp size 64 the
// grid is 4 rows of 64 lanes, 32 of them active in each (every other one), all
// 4 outlined as partial; at 32, 8 rows of 32 with 16 active. The status line
// names the emulated wavefront.
TEST(ViewerWarpWidth, RowsOf64LanesAndTheLabel)
{
    const Shot wide = screenshot("--lab reduction --version v1 --step 1 --backend cpu --warp-size 64");
    ASSERT_EQ(wide.exit_code, 0) << wide.output;
    EXPECT_EQ(wide.layout["warp_size"].get<unsigned>(), 64u);
    EXPECT_NE(wide.layout["status"]["text"].get<std::string>().find("emulated 64-wide wavefront"), std::string::npos)
        << wide.layout["status"].dump();
    EXPECT_EQ(active_runs_in_first_row(wide, "threads.grid", 4), 32u);
    EXPECT_GT(count_colour(wide.image, region(wide, "threads.grid"), wide.layout["palette"]["partial_outline"]), 500u);

    const Shot narrow = screenshot("--lab reduction --version v1 --step 1 --backend cpu");
    ASSERT_EQ(narrow.exit_code, 0) << narrow.output;
    EXPECT_EQ(active_runs_in_first_row(narrow, "threads.grid", 8), 16u);
    EXPECT_EQ(narrow.layout["status"]["text"].get<std::string>().find("wavefront"), std::string::npos);
}

// --compare-widths: the same step at 32 (left) and 64 (right), each grid with
// its own rows, at a projector's 1280x720 and at 1920x1080.
TEST(ViewerWarpWidth, CompareWidthsSideBySide)
{
    for (const char* size : {"1280x720", "1920x1080"}) {
        const Shot both = screenshot(std::string("--lab reduction --version v1 --step 1 --backend cpu --compare-widths --size ") + size);
        ASSERT_EQ(both.exit_code, 0) << both.output;
        EXPECT_TRUE(both.layout["compare_widths"].get<bool>());
        const Box left = region(both, "threads.width32"), right = region(both, "threads.width64");
        EXPECT_LE(left.x1, right.x0) << size;
        EXPECT_EQ(active_runs_in_first_row(both, "threads.grid32", 8), 16u) << size;
        EXPECT_EQ(active_runs_in_first_row(both, "threads.grid64", 4), 32u) << size;
    }
}

// The blog's barrier-free tail under lockstep, compared: at 32 the launch stops
// with a data race (its column shows the fault), at 64 it runs (its column
// shows the grid).
TEST(ViewerWarpWidth, CompareShowsTheRaceAt32AndTheRunAt64)
{
    if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc for --file";
    const Shot tail = screenshot("--lab reduction --version v3 --backend cpu --schedule lockstep --compare-widths --size 1280x720 "
                                 "--file " + test_kernel("wavefront_tail.cu") + " --kernel wavefront_tail");
    ASSERT_EQ(tail.exit_code, 0) << tail.output;
    const auto& regions = tail.layout["regions"];
    EXPECT_EQ(regions.count("threads.grid32"), 0u);
    EXPECT_EQ(regions.count("threads.grid64"), 1u);
    const Box banner = region(tail, "fault.banner"), left = region(tail, "threads.width32");
    EXPECT_GE(banner.x0, left.x0);
    EXPECT_LE(banner.x1, left.x1);
    EXPECT_GT(count_colour(tail.image, banner, tail.layout["palette"]["fault_banner"]), 5000u);
}

}  // namespace
}  // namespace warplab::viewer

namespace warplab::viewer {
namespace {

// The viewer takes the run's size: --n reaches the trace and the status line
// (reduction v3 at n = 1000 ints: the status says it, where the default is
// 4096), and the desk header has the field that changes it. v10 says which
// launch it took: at the default n = 4096 ints, 1024 int4 at four a thread of
// 1024 is one block and 0 pieces of 32 KB an SM, so no ring.
TEST(ViewerRunSize, NReachesTheTraceAndV10SaysItsPath)
{
    const Shot small = screenshot("--lab reduction --version v3 --backend cpu --n 1000 --size 1024x768");
    ASSERT_EQ(small.exit_code, 0) << small.output;
    const std::string text = small.layout["status"]["text"].get<std::string>();
    EXPECT_NE(text.find("n = 1000 int"), std::string::npos) << text;
    EXPECT_NE(text.find("correct"), std::string::npos) << text;
    EXPECT_EQ(text.find("ring"), std::string::npos) << "v3 has one launch: " << text;
    EXPECT_EQ(small.layout["regions"].count("header.n"), 1u);

    const Shot v10 = screenshot("--lab reduction --version v10 --backend cpu --size 1024x768");
    ASSERT_EQ(v10.exit_code, 0) << v10.output;
    const std::string path = v10.layout["status"]["text"].get<std::string>();
    EXPECT_NE(path.find("n = 4096 int"), std::string::npos) << path;
    EXPECT_NE(path.find("v10 gives no ring here (under 32 pieces an SM): rounds of four loads a thread, as v9's, 1 block"),
              std::string::npos)
        << path;
}

// --shape is warplab trace's --size (the window has --size), and --block takes
// the image lab's WxH: a 64x48 picture in 8x8 groups is 8x6 groups. (Bad
// sizes and blocks: BadArgumentsExitTwoWithOneLine.)
TEST(ViewerRunSize, ShapeAndTwoDimensionalBlock)
{
    const Shot image = screenshot("--lab image --version v1 --backend cpu --shape 64,48 --block 8x8 --size 1024x768");
    ASSERT_EQ(image.exit_code, 0) << image.output;
    const std::string text = image.layout["status"]["text"].get<std::string>();
    EXPECT_NE(text.find("64×48 RGBA8 pixels: 8×6 groups of 8×8 threads"), std::string::npos) << text;
}

// --image: the picture panel shows the user's picture, the one the run
// reduced. A 64×48 PNG, its left half (200, 40, 120), its right half
// (30, 180, 60): under 96 pixels wide the panel's cells are its pixels, so
// each half of the drawn picture is that half's colour, all but the watched
// group's outline (the 8×8 tile at the top left: under 10 % of a half; 1920x1080 shows the panel) and
// the cells' half-pixel overlap at the seam. The seeded picture has neither
// colour. The file is left as it was.
TEST(ViewerRunSize, ImageShowsTheUsersPicture)
{
    const int w = 64, h = 48;
    const std::uint8_t left[3] = {200, 40, 120}, right[3] = {30, 180, 60};
    RgbaImage picture{w, h, std::vector<std::uint8_t>(std::size_t(w) * h * 4, 255)};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) std::copy_n(x < w / 2 ? left : right, 3, &picture.rgba[(std::size_t(y) * w + x) * 4]);
    const std::string file = temp_file("_picture.png");
    write_png(file, picture);
    const std::string before = slurp(file);
    const Shot s = screenshot("--lab image --version v1 --backend cpu --block 8x8 --size 1920x1080 --image " + file);
    ASSERT_EQ(s.exit_code, 0) << s.output;
    EXPECT_EQ(slurp(file), before);
    const std::string text = s.layout["status"]["text"].get<std::string>();
    EXPECT_NE(text.find("64×48 RGBA8 pixels: 8×6 groups of 8×8 threads"), std::string::npos) << text;
    const Box drawn = region(s, "image.picture");
    const int middle = (drawn.x0 + drawn.x1) / 2;
    const Box left_half{drawn.x0 + 1, drawn.y0 + 1, middle - 1, drawn.y1 - 1}, right_half{middle + 1, drawn.y0 + 1, drawn.x1 - 1, drawn.y1 - 1};
    const auto area = [](Box b) { return std::size_t(b.x1 - b.x0) * std::size_t(b.y1 - b.y0); };
    EXPECT_GT(count_colour(s.image, left_half, {200, 40, 120}), area(left_half) * 9 / 10);
    EXPECT_GT(count_colour(s.image, right_half, {30, 180, 60}), area(right_half) * 9 / 10);
}

// Pixels darker than any cell colour (the digits; arrows too, where a step has them).
std::size_t dark_pixels(const Image& img, Box b)
{
    std::size_t n = 0;
    for (int y = std::max(0, b.y0); y < std::min(img.height, b.y1); ++y)
        for (int x = std::max(0, b.x0); x < std::min(img.width, b.x1); ++x) {
            const std::uint8_t* p = &img.rgba[(std::size_t(y) * img.width + x) * 4];
            n += int(p[0]) + p[1] + p[2] < 240;
        }
    return n;
}

// The image lab's float values: at step 0 of v1 each of the 256 threads
// stores its pixel's luminance, a fraction (0.123: five characters, wider
// than a cell of a 32-wide row); no thread reads, so no arrows. Every one of
// the 8 rows of 32 cells shows its numbers, with the digits that fit (.05 at
// 1024x768): each number is at least two glyphs and a point, so a row is well
// over 32 x 10 dark pixels (about 1200 a row at 1920x1080, 800 at 1024x768).
// Drawn with three digits or none, only the few that print shorter (0.12,
// 0.1) showed: 0 to 113 a row at 1920x1080.
TEST(ViewerPanels, FloatValuesShowInEveryRow)
{
    for (const char* size : {"1920x1080", "1024x768"}) {
        const Shot s = screenshot(std::string("--lab image --version v1 --step 0 --backend cpu --size ") + size);
        ASSERT_EQ(s.exit_code, 0) << s.output;
        const Box grid = region(s, "shared_values.sdata");
        const int row_h = (grid.y1 - grid.y0) / 8;
        for (int row = 0; row < 8; ++row)
            EXPECT_GT(dark_pixels(s.image, {grid.x0, grid.y0 + row * row_h, grid.x1, grid.y0 + (row + 1) * row_h}), 320u)
                << size << " row " << row;
    }
}

// The transfers lab without a GPU shows its recording: the status line names
// the recording's size and GPU, not an error in the warning colour (no
// status.error region) and not the trace's default n = 2^20 = 1048576; the
// header offers no settings (nothing runs here) and says why.
TEST(ViewerPanels, TransfersWithoutAGpuShowTheRecording)
{
    if (gpu_status().available) GTEST_SKIP() << "a GPU runs the transfers lab: this is the view without one";
    for (const char* size : {"1024x768", "1920x1080"}) {
        const Shot s = screenshot(std::string("--lab transfers --version v3 --size ") + size);
        ASSERT_EQ(s.exit_code, 0) << s.output;
        const std::string text = s.layout["status"]["text"].get<std::string>();
        EXPECT_NE(text.find("float, n = 2^28"), std::string::npos) << text;
        EXPECT_NE(text.find("as recorded on NVIDIA"), std::string::npos) << text;
        EXPECT_NE(text.find("runs only on a GPU"), std::string::npos) << text;
        EXPECT_EQ(text.find("1048576"), std::string::npos) << text;
        EXPECT_EQ(s.layout["regions"].count("status.error"), 0u) << size;
        EXPECT_EQ(s.layout["regions"].count("header.recording_only"), 1u) << size;
        EXPECT_EQ(s.layout["regions"].count("header.n"), 0u) << size;
    }
    const Shot reduction = screenshot("--lab reduction --version v1 --backend cpu");
    ASSERT_EQ(reduction.exit_code, 0) << reduction.output;
    EXPECT_EQ(reduction.layout["regions"].count("header.recording_only"), 0u);
}

}  // namespace
}  // namespace warplab::viewer
