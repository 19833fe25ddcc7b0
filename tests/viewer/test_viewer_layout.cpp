// Every lab's every version and step, at the sizes a lecture room and a desk
// give (1024x768, 1280x720, 1920x1080, 3840x2160), at the desk and
// presenting: no text is cut off by its panel, none is drawn over other
// text, and no panel that cannot scroll has contents past its edge. And what
// a class must see is on screen, not scrolled away: the step's source lines
// whole, the selected version's time bar and the reference's label, and a
// fault's text with its lockstep button. The checks read Dear ImGui's draw
// lists (viewer/panels/text_check.h) and the named regions, so the frames are laid
// out but not rasterized: the whole sweep takes seconds.
#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "labs/common/bench_json.h"
#include "labs/common/lab.h"
#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/model/layout.h"
#include "viewer/app/lesson_player.h"
#include "viewer/panels/panels.h"
#include "viewer/platform/platform.h"
#include "viewer/panels/text_check.h"
#include "viewer/model/timing_model.h"
#include "warplab/trace/compare.h"

namespace warplab::viewer {
namespace {

struct Size {
    int width, height;
};
constexpr Size kSizes[] = {{1024, 768}, {1280, 720}, {1920, 1080}, {3840, 2160}};

bool inside(const Rect& in, const Rect& out)
{
    constexpr float e = 1;  // rounding
    return in.x >= out.x - e && in.y >= out.y - e && in.x + in.w <= out.x + out.w + e && in.y + in.h <= out.y + out.h + e;
}

std::string text(const Rect& r)
{
    return "[" + std::to_string(int(r.x)) + "," + std::to_string(int(r.y)) + " " + std::to_string(int(r.w)) + "x" +
           std::to_string(int(r.h)) + "]";
}

// What a class must see, where its panel is shown: `region` inside `view`
// (what its scrolling child shows; none: the panel) and the panel inside the window.
void must_see(App& app, Size s, const char* region, const char* view, Panel panel, std::vector<TextProblem>& out)
{
    if (!app.layout.has(panel) || !app.regions.count(region)) return;
    const Rect screen{0, 0, float(s.width), float(s.height)}, r = app.regions.at(region), p = app.layout[panel];
    const Rect v = view && app.regions.count(view) ? app.regions.at(view) : p;
    if (!inside(r, v) || !inside(v, p) || !inside(p, screen))
        out.push_back({TextProblem::Kind::Clipped, panel_name(panel),
                       std::string(region) + " " + text(r) + " not inside what " + panel_name(panel) + " shows " + text(v),
                       {}, {}});
}

// The frame's must-sees that are missing: each arrangement of a compact
// window (Layout::views) shows some of them.
void check_must_see(App& app, Size s, std::vector<TextProblem>& out)
{
    // The step's lines all where they fit in the view together (a third of
    // the way down); where they span more (matmul's tile loop), the first.
    // On a lesson's slide that highlights lines, those lines instead; where
    // they do not fit together, the ones the slide adds to the step's.
    const auto fits = [&](const std::string& lines) {
        return app.regions.count("source." + lines + "_lines") && app.regions.count("source.view") &&
               app.regions.at("source." + lines + "_lines").h <= app.regions.at("source.view").h;
    };
    std::string lines = "step";
    if (app.regions.count("source.slide_lines"))
        lines = fits("slide") || !app.regions.count("source.slide_extra_lines") ? "slide" : "slide_extra";
    const std::string seen = fits(lines) ? "source." + lines + "_lines" : "source.first_" + lines + "_line";
    must_see(app, s, seen.c_str(), "source.view", Panel::Source, out);
    must_see(app, s, "time.selected", "time.view", Panel::Time, out);
    must_see(app, s, "time.reference", nullptr, Panel::Time, out);
    must_see(app, s, "fault.banner", nullptr, Panel::Threads, out);
    must_see(app, s, "fault.lockstep", "fault.banner", Panel::Threads, out);
}

// Lays out one frame (three times, as a screenshot does: a panel decides on
// its scroll bar, and a scroll takes effect, from the previous frame's
// contents) and checks it.
std::vector<TextProblem> lay_out(Platform& platform, App& app, Size s)
{
    std::vector<TextProblem> problems;
    for (int frame = 0; frame < 3; ++frame) {
        platform.begin_frame(app);
        draw_frame(app);
        platform.end_frame();
        if (frame == 2) problems = check_text(*ImGui::GetDrawData());
    }
    check_must_see(app, s, problems);
    return problems;
}

std::string where(App& app, Size s)
{
    return std::to_string(s.width) + "x" + std::to_string(s.height) + (app.presenter ? " presenter " : " desk ") + current_lab(app).id +
           " " + current_version(app).id + " step " + std::to_string(app.sel.step);
}

// The problems found, each told once (where it was first seen, and how often).
struct Sweep {
    std::size_t frames = 0;
    std::map<std::string, std::pair<std::string, std::size_t>> problems;  // what -> (first seen where, times)
    void add(App& app, Size s, const std::vector<TextProblem>& found)
    {
        ++frames;
        for (const TextProblem& p : found) {
            auto& seen = problems[p.describe()];
            if (!seen.second++) seen.first = where(app, s);
        }
    }
};

// A compact window's first arrangement holds the step (threads, shared
// values, the source) and is laid out at every step; the others (memory
// instructions, times: the same source beside them) at the first, a middle
// and the last step of every version.
void sweep_labs(Platform& platform, App& app, Size size, Sweep& out)
{
    for (std::size_t lab = 0; lab < all_labs().size(); ++lab) {
        select_lab(app, lab);
        for (std::size_t v = 0; v < current_lab(app).versions.size(); ++v) {
            select_version(app, v);
            const std::uint32_t steps = std::max(1u, step_count(app));
            for (int view = 0;; ++view) {
                app.view = view;
                for (std::uint32_t s = 0; s < steps; ++s) {
                    if (view > 0 && s != 0 && s != steps / 2 && s + 1 != steps) continue;
                    set_step(app, s);
                    out.add(app, size, lay_out(platform, app, size));
                }
                if (view + 1 >= int(app.layout.views.size())) break;
            }
            app.view = 0;
        }
    }
    app.playground.open = true;
    out.add(app, size, lay_out(platform, app, size));
    app.playground.open = false;
}

// Every lab laid out at each size in both modes; the time it took printed.
Sweep sweep_at(App& app, std::initializer_list<Size> sizes)
{
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    app.animate = false;
    app.timing = load_recorded_timing(results_dir());
    Sweep sweep;
    const auto start = std::chrono::steady_clock::now();
    for (const Size size : sizes) {
        PlatformOptions po;
        po.headless = true;
        po.width = size.width, po.height = size.height;
        Platform platform(po, app);
        for (const bool presenter : {false, true}) {
            app.presenter = presenter;
            sweep_labs(platform, app, size, sweep);
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("laid out and checked %zu frames in %.1f s\n", sweep.frames, seconds);
    return sweep;
}

void report(const Sweep& sweep)
{
    std::size_t told = 0;
    for (const auto& [what, seen] : sweep.problems)
        if (told++ < 1000) ADD_FAILURE() << seen.first << " (and " << seen.second - 1 << " more frames): " << what;
}

TEST(ViewerLayout, NoTextClippedOrOverlappingAtAnySizeInEitherMode)
{
    App app;
    const Sweep sweep = sweep_at(app, {kSizes[0], kSizes[1], kSizes[2], kSizes[3]});
    EXPECT_GT(sweep.frames, 8u * 100);  // every step of every version: hundreds of frames, not a handful
    report(sweep);
}

// The warp widths side by side (C) give each its half of the threads panel:
// at the smallest size, in both modes, every lab's every step still lays out
// without clipped or overlapping text (a fault's box and its lockstep button
// included: reduction v5 faults at 64 lanes on its 32-bit __syncwarp mask).
TEST(ViewerLayout, WarpWidthsSideBySideAtTheSmallestSize)
{
    App app;
    app.compare_widths = true;
    const Sweep sweep = sweep_at(app, {kSizes[0]});
    EXPECT_GT(sweep.frames, 2u * 100);
    report(sweep);
}

// Versions side by side (D): the two versions' step table takes the threads
// panel's column. At a projector's 1024x768 (its narrowest; 1920x1080 is a
// screenshot test's), at the desk and presenting, every lab's every step lays
// out without clipped or overlapping text (the table scrolls; its note wraps).
TEST(ViewerLayout, VersionsSideBySideAtTheSmallestSize)
{
    App app;
    app.compare_versions = true;
    const Sweep sweep = sweep_at(app, {kSizes[0]});
    EXPECT_GT(sweep.frames, 2u * 100);
    report(sweep);
}

// Every shipped lesson's every slide, its question asked and its answer
// revealed, in both modes at the sizes of a room (4K draws the 1080p layout
// larger): the lesson bar above the status line, and the panels in what is
// left, clip nothing. Each lesson is its own CTest entry, so that ctest -j
// lays them out side by side (ShippedLessonsAreOnePerLab lists them).
class LessonLayout : public testing::TestWithParam<std::string> {};

TEST_P(LessonLayout, SlidesAtARoomsSizesAskedAndRevealed)
{
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    App app;
    app.animate = false;
    app.timing = load_recorded_timing(results_dir());
    const auto lesson = std::make_shared<const Lesson>(load_lesson(GetParam()));
    const auto questions = std::count_if(lesson->slides.begin(), lesson->slides.end(), [](const Slide& s) { return s.question.has_value(); });
    Sweep sweep;
    for (const Size size : {kSizes[0], kSizes[1], kSizes[2]}) {
        PlatformOptions po;
        po.headless = true;
        po.width = size.width, po.height = size.height;
        Platform platform(po, app);
        start_lesson(app, lesson);
        for (std::size_t slide = 0; slide < lesson->slides.size(); ++slide)
            for (const bool presenter : {true, false}) {
                show_slide(app, slide);
                app.presenter = presenter;
                lay_out(platform, app, size);  // settling, as a screenshot of a slide does (frame_image)
                sweep.add(app, size, lay_out(platform, app, size));
                if (!lesson->slides[slide].question) continue;
                toggle_reveal(app);
                sweep.add(app, size, lay_out(platform, app, size));
            }
    }
    // 3 sizes x 2 modes x (every slide, and again revealed where it asks)
    EXPECT_EQ(sweep.frames, 3u * 2 * (lesson->slides.size() + std::size_t(questions)));
    report(sweep);
}

INSTANTIATE_TEST_SUITE_P(ViewerLayout, LessonLayout, testing::ValuesIn(shipped_lessons()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// Method v17's slide highlights lines 26 and 35 at step 0, whose line is 26:
// at a projector's 1024x768 the two do not fit the source view together, and
// line 35 is below its first screen (with the view left at the top it is not
// seen). The panel scrolls to line 35, the one the slide adds to the step's.
TEST(ViewerLayout, ASlidesLinesBelowTheFirstScreenAreScrolledTo)
{
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    App app;
    app.animate = false;
    const auto lesson = std::make_shared<const Lesson>(load_lesson("method"));
    const auto slide = std::find_if(lesson->slides.begin(), lesson->slides.end(), [](const Slide& s) { return s.version == "v17"; });
    ASSERT_NE(slide, lesson->slides.end());
    ASSERT_EQ(slide->highlight, (std::vector<std::uint32_t>{26, 35}));
    const Size size = kSizes[0];
    PlatformOptions po;
    po.headless = true;
    po.width = size.width, po.height = size.height;
    Platform platform(po, app);
    start_lesson(app, lesson);
    for (const bool follow : {false, true}) {
        show_slide(app, std::size_t(slide - lesson->slides.begin()));
        app.follow_step.source = follow;  // false: as once the user has scrolled the code
        lay_out(platform, app, size);
        for (const char* region : {"source.slide_lines", "source.slide_extra_lines", "source.first_step_line", "source.view"})
            ASSERT_TRUE(app.regions.count(region)) << region;
        const Rect all = app.regions.at("source.slide_lines"), added = app.regions.at("source.slide_extra_lines");
        const Rect view = app.regions.at("source.view");
        EXPECT_GT(all.h, view.h);  // lines 26 to 35 do not fit the view together
        EXPECT_EQ(app.regions.at("source.first_step_line").y, all.y);  // line 26 is the step's
        EXPECT_EQ(inside(added, view), follow) << "line 35 " << text(added) << ", view " << text(view);
    }
}

// Method v19 and v20 are about the constant cache: a __constant__ table read
// with one index a warp (1-way) and with each lane's own (32 addresses a warp
// instruction, 32-way). Their kernels have no shared arrays, so presenting,
// the instruction mix takes the shared-memory panels' room; the constant
// loads' n-way table (mix.constant) must be on screen in it, at a projector's
// 1024x768 (the step's arrangement, threads over the mix) and at 1920x1080,
// with the worst n-way of v20's one step 32 (lane l reads entry (k + l) mod
// 32: 32 distinct addresses) and v19's 1.
TEST(ViewerLayout, TheConstantLoadsNWayIsOnScreenPresentingMethodV19AndV20)
{
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    App app;
    app.animate = false;
    app.presenter = true;
    for (const Size size : {kSizes[0], kSizes[2]}) {
        PlatformOptions po;
        po.headless = true;
        po.width = size.width, po.height = size.height;
        Platform platform(po, app);
        for (const auto& [version, worst] : {std::pair{"v19", 1u}, std::pair{"v20", 32u}}) {
            select_by_name(app, "method", version);
            app.sel.backend = BackendChoice::Cpu;  // the mix is the emulator's: a GPU trace has none
            set_step(app, 0);
            ASSERT_STREQ(current_version(app).id, version);
            const std::vector<TextProblem> problems = lay_out(platform, app, size);
            const std::string at = std::to_string(size.width) + "x" + std::to_string(size.height) + " " + version;
            for (const TextProblem& p : problems) ADD_FAILURE() << at << ": " << p.describe();
            ASSERT_TRUE(app.layout.has(Panel::Mix)) << at;
            ASSERT_TRUE(app.regions.count("mix.constant")) << at << ": no __constant__ table drawn";
            const Rect table = app.regions.at("mix.constant"), panel = app.layout[Panel::Mix];
            EXPECT_TRUE(inside(table, panel) && inside(panel, Rect{0, 0, float(size.width), float(size.height)}))
                << at << ": table " << text(table) << ", mix panel " << text(panel);
            const TracedRun* run = current_run(app);
            ASSERT_TRUE(run);
            EXPECT_EQ(run->steps.at(0).constant_load.worst, worst) << at;
        }
    }
}

// Reduction v5 under lockstep with line 28's barriers off, beside v4 (D):
// the compare panel sets v4 against the rerun, and the barrier switch's
// verdict the kernel as written against the rerun; each pair's differing
// steps (which sort every event) are found once and kept, not again each
// frame: after three frames App::differing holds those two pairs, each
// equal to wl::trace::differing_steps found afresh, and three more frames
// add none. The rerun's 14 steps (line 28's read and write and line 29's
// read fall in one) differ from the written 16.
TEST(ViewerLayout, TheBarrierVerdictAndTheCompareTableKeepTheirDifferingSteps)
{
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    App app;
    app.animate = false;
    app.presenter = true;
    PlatformOptions po;
    po.headless = true;
    po.width = kSizes[2].width, po.height = kSizes[2].height;
    Platform platform(po, app);
    select_by_name(app, "reduction", "v5");
    Selection s = app.sel;
    s.backend = BackendChoice::Cpu;
    s.schedule = wl::emu::Schedule::Lockstep;
    select_settings(app, s);
    toggle_barrier(app, 28);
    app.compare_versions = true;
    lay_out(platform, app, kSizes[2]);
    ASSERT_TRUE(app.regions.count("source.without_barrier"));
    const TraceSlot &rerun = current_trace(app), &written = trace_as_written(app, app.sel.version);
    const TraceSlot& before = trace_of(app, *compared_version(app));
    ASSERT_TRUE(rerun.run && written.run && before.run);
    ASSERT_EQ(app.differing.size(), 2u);
    for (const TraceSlot* other : {&written, &before}) {
        const auto kept = app.differing.find({other->serial, rerun.serial});
        ASSERT_NE(kept, app.differing.end());
        EXPECT_EQ(kept->second, wl::trace::differing_steps(other->run->block, rerun.run->block));
    }
    EXPECT_TRUE(wl::trace::first_differing_step(app.differing.at({written.serial, rerun.serial})));  // 16 steps against 14
    lay_out(platform, app, kSizes[2]);
    EXPECT_EQ(app.differing.size(), 2u);
}

// A headless 800x600 window for a hand-made frame.
PlatformOptions probe_window(App& app)
{
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    app.animate = false;
    PlatformOptions po;
    po.headless = true;
    po.width = 800, po.height = 600;
    return po;
}

// A frame of the probe window in the panels' font, for measuring text.
struct TextFrame {
    App app;
    Platform platform{probe_window(app), app};
    TextFrame()
    {
        platform.begin_frame(app);
        ImGui::PushFont(fonts(app).ui);
    }
    ~TextFrame()
    {
        ImGui::PopFont();
        platform.end_frame();
    }
};

// The check can fail: a label drawn past its panel's edge, and two labels on
// one spot, are found; the same labels drawn apart are not.
TEST(ViewerLayout, TheCheckFindsAClippedLabelAndOverlappingText)
{
    App app;
    Platform platform(probe_window(app), app);
    const auto frame = [&](int layout) {
        std::vector<TextProblem> problems;
        for (int f = 0; f < 2; ++f) {
            platform.begin_frame(app);
            ImGui::PushFont(fonts(app).ui);
            ImGui::SetNextWindowPos(ImVec2(10, 10));
            ImGui::SetNextWindowSize(ImVec2(200, 100));
            ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoDecoration);
            ImDrawList* dl = ImGui::GetWindowDrawList();
            const ImVec2 p = ImGui::GetCursorScreenPos();
            if (layout == 0) dl->AddText(ImVec2(p.x + 150, p.y), 0xFF000000, "4 bytes");  // runs past x = 210
            if (layout == 1) dl->AddText(p, 0xFF000000, "2.545 ms"), dl->AddText(ImVec2(p.x + 12, p.y + 3), 0xFF000000, "1688 GB/s");
            if (layout == 2) dl->AddText(p, 0xFF000000, "2.545 ms"), dl->AddText(ImVec2(p.x, p.y + 40), 0xFF000000, "1688 GB/s");
            if (layout == 3) ImGui::Dummy(ImVec2(10, 300)), ImGui::SetCursorPos(ImVec2(8, 8));  // past the bottom, no scroll bar
            ImGui::End();
            ImGui::PopFont();
            platform.end_frame();
            if (f == 1) problems = check_text(*ImGui::GetDrawData());
        }
        return problems;
    };
    const auto clipped = frame(0);
    ASSERT_EQ(clipped.size(), 1u);
    EXPECT_EQ(clipped[0].kind, TextProblem::Kind::Clipped);
    EXPECT_NE(clipped[0].text.find("4 b"), std::string::npos) << clipped[0].describe();
    const auto overlapping = frame(1);
    ASSERT_EQ(overlapping.size(), 1u);
    EXPECT_EQ(overlapping[0].kind, TextProblem::Kind::Overlap);
    EXPECT_NE(overlapping[0].describe().find("1688 GB/s"), std::string::npos) << overlapping[0].describe();
    EXPECT_TRUE(frame(2).empty());
    const auto overflow = frame(3);
    ASSERT_EQ(overflow.size(), 1u);
    EXPECT_EQ(overflow[0].kind, TextProblem::Kind::Overflow);
}

// Wrapped text breaks between words only. At the width of "result -34."
// ImGui's own wrapping (which breaks after '.') ends a line inside the
// number -34.8736012; wrap_at_spaces turns spaces alone into line breaks, so
// putting the spaces back gives the text, every line but a lone word fits,
// and a text that fits is left whole.
// A kernel without shared memory (the method lab's, coalescing's without its
// sweep) gives the two shared-memory panels' room to the instruction mix, and
// the mix's own room at the desk to the time chart under it. By the layout's
// shares at the desk (1920x1080, header 40, status 30, steps 60): the centre
// column is threads 0.22, shared values 0.27, banks 0.31 of 950 pixels, so
// the mix spans from shared values' top to banks' bottom; the right column's
// time chart then starts where the mix did. Presenting at 4:3, the step's
// arrangement is the threads over the mix.
TEST(ViewerLayout, AKernelWithoutSharedMemoryGivesItsRoomToTheMix)
{
    LayoutNeeds none;
    none.uses_shared = false;
    const Layout with = desk_layout(1920, 1080, 40, 30, 60), without = desk_layout(1920, 1080, 40, 30, 60, none);
    ASSERT_TRUE(with.has(Panel::SharedValues) && with.has(Panel::Banks) && with.has(Panel::Mix));
    EXPECT_FALSE(without.has(Panel::SharedValues));
    EXPECT_FALSE(without.has(Panel::Banks));
    ASSERT_TRUE(without.has(Panel::Mix));
    EXPECT_EQ(without[Panel::Mix].x, with[Panel::SharedValues].x);
    EXPECT_EQ(without[Panel::Mix].y, with[Panel::SharedValues].y);
    EXPECT_EQ(without[Panel::Mix].y + without[Panel::Mix].h, with[Panel::Banks].y + with[Panel::Banks].h);
    EXPECT_EQ(without[Panel::Time].y, with[Panel::Mix].y);
    EXPECT_EQ(without[Panel::Time].y + without[Panel::Time].h, with[Panel::Time].y + with[Panel::Time].h);

    const Layout room = presenter_layout(1024, 768, 60, 40, none);
    ASSERT_TRUE(room.has(Panel::Threads) && room.has(Panel::Mix));
    EXPECT_FALSE(room.has(Panel::SharedValues));
    EXPECT_EQ(room[Panel::Mix].y, room[Panel::Threads].y + room[Panel::Threads].h);

    // Presenting at 1920x1080 (header 60, status 40: a body of 980), global
    // memory moves under the mix, in the left column's last quarter (0.25:
    // 245 pixels where the right column gave it 0.18, 176), for its lanes and
    // sectors to be read; the source takes its place down to the time chart.
    const Layout shared = presenter_layout(1920, 1080, 60, 40), wide = presenter_layout(1920, 1080, 60, 40, none);
    ASSERT_TRUE(wide.has(Panel::Threads) && wide.has(Panel::Mix) && wide.has(Panel::Global) && wide.has(Panel::Source));
    EXPECT_FALSE(wide.has(Panel::SharedValues) || wide.has(Panel::Banks));
    EXPECT_EQ(wide[Panel::Mix].y, wide[Panel::Threads].y + wide[Panel::Threads].h);
    EXPECT_EQ(wide[Panel::Global].x, wide[Panel::Mix].x);
    EXPECT_EQ(wide[Panel::Global].y, wide[Panel::Mix].y + wide[Panel::Mix].h);
    EXPECT_EQ(wide[Panel::Global].y + wide[Panel::Global].h, 1080 - 40);
    EXPECT_NEAR(wide[Panel::Global].h, 245, 1);
    EXPECT_NEAR(shared[Panel::Global].h, 176, 1);
    EXPECT_EQ(wide[Panel::Time].y, wide[Panel::Source].y + wide[Panel::Source].h);
    EXPECT_EQ(wide[Panel::Time].y, shared[Panel::Time].y);

    // A lab's own panel keeps the room it takes (coalescing's sweep), with or without shared arrays.
    none.lab_panel = Panel::Coalescing;
    const Layout sweep = presenter_layout(1920, 1080, 60, 40, none);
    EXPECT_TRUE(sweep.has(Panel::Coalescing));
    EXPECT_FALSE(sweep.has(Panel::Mix));
}

// A lab names its own panel in its registry entry by the panel table's name:
// coalescing's sweep, image's picture and transfers' timeline are the three
// the labs name now; a name the table lacks (or one of the trace's panels)
// would leave the lab without its panel, and must fail here.
TEST(ViewerLayout, EveryLabsOwnPanelIsOneOfTheTables)
{
    std::map<std::string, std::string> named;  // lab -> its panel
    for (const Lab& lab : all_labs())
        if (!lab.panel.empty()) {
            named[lab.id] = lab.panel;
            const std::optional<Panel> own = lab_panel(lab.panel);
            ASSERT_TRUE(own) << lab.id << " names '" << lab.panel << "', no lab's panel in viewer/model/layout.h";
            EXPECT_STREQ(panel_name(*own), lab.panel.c_str());
        }
    EXPECT_EQ(named, (std::map<std::string, std::string>{{"coalescing", "coalescing"}, {"image", "image"}, {"transfers", "timeline"}}));
    EXPECT_FALSE(lab_panel("banks"));  // a trace panel: placed by the layouts, no lab's to take a room
    EXPECT_FALSE(lab_panel(""));
    EXPECT_EQ(panel_room(Panel::Image), Room::Global);
}

// A text cut to a width keeps its start and its end around "…": a launch's
// host line "reduction_with_a_rather_long_name.cu:42" (39 characters) in the
// width of "reduction.cu:42" fits it, starts with "red" and ends with ":42",
// and is shorter; a text that fits is left whole; a width under "…" keeps "…"
// alone; a two-byte character (é) is never cut in half.
TEST(ViewerLayout, ElidedTextKeepsItsStartAndEnd)
{
    const TextFrame frame;
    const std::string line = "reduction_with_a_rather_long_name.cu:42";
    const float width = ImGui::CalcTextSize("reduction.cu:42").x;
    const std::string cut = elided(line, width);
    EXPECT_LE(ImGui::CalcTextSize(cut.c_str()).x, width) << cut;
    EXPECT_EQ(cut.rfind("red", 0), 0u) << cut;
    EXPECT_TRUE(cut.ends_with(":42")) << cut;
    EXPECT_NE(cut.find("…"), std::string::npos) << cut;
    EXPECT_LT(cut.size(), line.size());
    EXPECT_EQ(elided("reduction.cu:42", width), "reduction.cu:42");
    EXPECT_EQ(elided(line, 1), "…");
    const std::string accented = "éééééééééééééééééééééééééééééé.cu:7";  // é: 0xC3 0xA9
    const std::string short_cut = elided(accented, ImGui::CalcTextSize("éééé.cu:7").x);
    EXPECT_TRUE(short_cut.ends_with(".cu:7")) << short_cut;
    EXPECT_NE(short_cut.find("é…"), std::string::npos) << short_cut;
    for (std::size_t i = 0; i < short_cut.size(); ++i)  // whole characters only: é's first byte with its second
        EXPECT_EQ(short_cut[i] == '\xC3', i + 1 < short_cut.size() && short_cut[i + 1] == '\xA9') << short_cut;
}

// Every character the panels print of a lab is in the fonts: its title and
// each version's id, idea, change and expected effect, as UTF-8. The method
// lab's title cites Filipovič (č, U+010D, past Latin-1): a missing glyph
// drew it as '?' in the header and the versions panel.
TEST(ViewerLayout, EveryLabsTextHasItsGlyphs)
{
    const TextFrame frame;
    ImFont* font = ImGui::GetFont();
    const auto missing = [&](const char* text) {
        std::string out;
        for (const char* c = text; c && *c;) {
            unsigned int code = 0;
            c += ImTextCharFromUtf8(&code, c, nullptr);
            if (!font->FindGlyphNoFallback(ImWchar(code))) out += printf_string(" U+%04X", code);
        }
        return out;
    };
    std::size_t texts = 0;
    for (const Lab& lab : all_labs()) {
        EXPECT_EQ(missing(lab.title.c_str()), "") << lab.title;
        for (const Version& v : lab.versions)
            for (const char* text : {v.id, v.idea, v.changed, v.expected}) {
                EXPECT_EQ(missing(text), "") << lab.id << " " << v.id << ": " << text;
                ++texts;
            }
    }
    EXPECT_GT(texts, 4u * 50);  // every version of every lab, not a handful
    EXPECT_EQ(missing("a\xE4\xB8\xAD"), " U+4E2D");  // the check can fail: a CJK character is in no range loaded
}

TEST(ViewerLayout, WrappedTextBreaksBetweenWordsOnly)
{
    const TextFrame frame;
    const std::string text = "result -34.8736012, expected -34.8736012: correct";
    const float width = ImGui::CalcTextSize("result -34.").x + 1;
    const char* imgui_cut = ImGui::GetFont()->CalcWordWrapPositionA(1.0f, text.c_str(), text.c_str() + text.size(), width);
    EXPECT_EQ(std::string(text.c_str(), imgui_cut), "result -34.");  // what the status line showed at 4K presenting

    const std::string wrapped = wrap_at_spaces(text, width);
    std::string joined = wrapped;
    std::replace(joined.begin(), joined.end(), '\n', ' ');
    EXPECT_EQ(joined, text);
    EXPECT_NE(wrapped.find("\n-34.8736012,"), std::string::npos) << wrapped;
    std::size_t start = 0;
    while (start <= wrapped.size()) {
        const std::size_t end = std::min(wrapped.find('\n', start), wrapped.size());
        const std::string line = wrapped.substr(start, end - start);
        EXPECT_TRUE(ImGui::CalcTextSize(line.c_str()).x <= width || line.find(' ') == std::string::npos) << line;
        start = end + 1;
    }
    EXPECT_EQ(wrap_at_spaces(text, 1e6f), text);
    EXPECT_EQ(wrap_at_spaces("two\nlines", 1e6f), "two\nlines");
}

}  // namespace
}  // namespace warplab::viewer
