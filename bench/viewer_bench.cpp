// How long the viewer takes to draw a frame: 1920x1080, SDL's software
// renderer (offscreen), the largest trace there is. Prints ms per frame for
// the desk layout and for presenter mode; the budget is 16 ms.
//   warplab_viewer_bench [FRAMES]        (default 200)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "labs/common/bench_json.h"
#include "viewer/platform/headless.h"
#include "viewer/panels/panels.h"
#include "viewer/model/step_model.h"

namespace {

using namespace warplab::viewer;

// One trace to draw: a lab's version at its largest block, at its busiest step.
struct Scene {
    std::size_t lab = 0, version = 0, events = 0;
    unsigned block = 0;  // 0: the version fixes its own block
    std::uint32_t threads = 0, step = 0;
};

// The step with the most events: the busiest picture of a trace.
std::uint32_t busiest_step(const warplab::TracedRun& run)
{
    std::uint32_t best = 0;
    std::size_t most = 0;
    for (std::uint32_t s = 0; s < run.steps.size(); ++s) {
        const EventRange r = step_events(run.block, s);
        if (r.end - r.begin > most) most = r.end - r.begin, best = s;
    }
    return best;
}

void select_block(App& app, unsigned block)
{
    warplab::viewer::Selection s = app.sel;
    s.block = block;
    select_settings(app, s);
}

// Every version of every lab at the largest block it accepts (a lab whose
// versions fix their own blocks, matmul, has no default block).
std::vector<Scene> all_scenes(App& app)
{
    std::vector<Scene> out;
    for (std::size_t lab = 0; lab < warplab::all_labs().size(); ++lab) {
        select_lab(app, lab);
        const unsigned block = current_lab(app).default_block ? 1024 : 0;
        select_block(app, block);
        for (std::size_t v = 0; v < current_lab(app).versions.size(); ++v)
            if (const TraceSlot& slot = trace_of(app, v); slot.run)
                out.push_back({lab, v, slot.run->block.events.size(), block, slot.run->block.threads, busiest_step(*slot.run)});
    }
    return out;
}

void show(App& app, const Scene& s)
{
    select_lab(app, s.lab);
    select_block(app, s.block);
    select_version(app, s.version);
    set_step(app, s.step);
}

struct FrameTime {
    double build = 0, raster = 0, present = 0;  // ms: panels and ImGui's draw lists; SDL drawing them; presenting
    double total() const { return build + raster + present; }
};

FrameTime frame_ms(Platform& platform, App& app)
{
    using clock = std::chrono::steady_clock;
    const auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    const auto t0 = clock::now();
    platform.begin_frame(app);
    draw_frame(app);
    platform.end_frame();
    const auto t1 = clock::now();
    platform.rasterize();
    const auto t2 = clock::now();
    platform.present();
    return {ms(t0, t1), ms(t1, t2), ms(t2, clock::now())};
}

struct Summary {
    double mean = 0, median = 0, p95 = 0;
    FrameTime parts;
};

constexpr int kFramesPerTrace = 40;  // each of the other traces, each mode

Summary measure(Platform& platform, App& app, int frames)
{
    for (int i = 0; i < 5; ++i) frame_ms(platform, app);  // warm-up: font atlas, table sizes
    std::vector<double> ms;
    FrameTime sum;
    for (int i = 0; i < frames; ++i) {
        app.clock += 1.0 / 60;  // the arrows animate as they would on screen
        if (i % 30 == 0) app.step_shown_at = app.clock;
        const FrameTime t = frame_ms(platform, app);
        sum = {sum.build + t.build, sum.raster + t.raster, sum.present + t.present};
        ms.push_back(t.total());
    }
    std::sort(ms.begin(), ms.end());
    // p95 by nearest rank: the ceil(0.95 n)-th smallest (of 20 frames the 19th, not the slowest).
    const std::size_t p95_rank = (ms.size() * 95 + 99) / 100;
    return {sum.total() / frames, ms[ms.size() / 2], ms[std::max<std::size_t>(1, p95_rank) - 1],
            {sum.build / frames, sum.raster / frames, sum.present / frames}};
}

void print(const char* mode, const Summary& s, int frames)
{
    std::printf("  %-10s %6.2f ms/frame mean, %6.2f median, %6.2f p95 (%d frames); build %.2f, raster %.2f, present %.2f\n",
                mode, s.mean, s.median, s.p95, frames, s.parts.build, s.parts.raster, s.parts.present);
}

std::string scene_name(App& app)
{
    return current_lab(app).id + " " + current_version(app).id + " step " + std::to_string(app.sel.step);
}

}  // namespace

int main(int argc, char** argv)
{
    const int frames = argc > 1 ? std::max(10, std::atoi(argv[1])) : 200;
    App app;
    const std::vector<Scene> scenes = all_scenes(app);
    app.timing = load_recorded_timing(warplab::results_dir());
    Platform platform(PlatformOptions{1920, 1080, true, false}, app);
    app.animate = true;
    std::printf("viewer frame time at 1920x1080, renderer %s; budget 16 ms\n", platform.renderer_name().c_str());

    // The largest trace (most warp events), in both modes.
    const Scene largest = *std::max_element(scenes.begin(), scenes.end(), [](const Scene& a, const Scene& b) { return a.events < b.events; });
    show(app, largest);
    std::printf("largest trace: %s (%u threads, %zu warp events; the busiest step)\n", scene_name(app).c_str(), largest.threads,
                largest.events);
    app.presenter = false;
    print("desk", measure(platform, app, frames), frames);
    app.presenter = true;
    print("presenter", measure(platform, app, frames), frames);

    // Every other trace at its busiest step, in both modes: the slowest by mean and by p95.
    Summary worst_mean, worst_p95;
    std::string mean_name, p95_name;
    for (const bool presenter : {false, true}) {
        app.presenter = presenter;
        for (const Scene& s : scenes) {
            show(app, s);
            const Summary m = measure(platform, app, kFramesPerTrace);
            const std::string name = scene_name(app) + (presenter ? " (presenter)" : " (desk)");
            if (m.mean > worst_mean.mean) worst_mean = m, mean_name = name;
            if (m.p95 > worst_p95.p95) worst_p95 = m, p95_name = name;
        }
    }
    std::printf("slowest of all %zu traces, each mode (%d frames each): by mean %s, %.2f ms/frame mean, %.2f p95; by p95 %s, "
                "%.2f ms/frame mean, %.2f p95\n",
                scenes.size(), kFramesPerTrace, mean_name.c_str(), worst_mean.mean, worst_mean.p95, p95_name.c_str(), worst_p95.mean, worst_p95.p95);
    return 0;
}
