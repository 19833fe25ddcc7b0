// warplab-viewer: step through a lab's versions and see what the hardware sees.
// main() in four parts: set-up, loop, render, clean-up.
// Exit codes: 0 ok; 1 no display or a file that cannot be written; 2 bad arguments;
// 3 a kernel ran past the GPU deadline and still runs there (its fault was in the
// window): the viewer ends at once, without CUDA's clean-up, which would wait for it.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "viewer/platform/headless.h"
#include "viewer/app/options.h"
#include "viewer/panels/panels.h"
#include "viewer/platform/platform.h"
#include "viewer/model/timing_model.h"
#include "labs/common/bench_json.h"
#include "warplab/cuda/deadline.h"

// The exit code, or, where a kernel still runs on the GPU (warplab/cuda/deadline.h), the end at once.
static int ended(int code)
{
    if (!wl::cuda::gpu_abandoned()) return code;
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code ? code : 3);
}

int main(int argc, char** argv)
{
    using namespace warplab::viewer;
    wl::cuda::past_deadline(wl::cuda::PastDeadline::Throw);  // a kernel past the GPU deadline: a fault in the window

    // ---- 1. set-up: arguments, the first trace, the window ----
    Options options;
    App app;
    try {
        const auto parsed = parse_options(argc, argv);
        if (!parsed) return 0;
        options = *parsed;
        apply_options(app, options);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "warplab-viewer: error: %s\n", e.what());
        return 2;
    }
    app.timing = load_recorded_timing(warplab::results_dir());
    app.gpu = warplab::gpu_status();
    PlatformOptions po;
    po.headless = options.headless();
    po.fullscreen = options.presenter;
    po.width = options.width ? options.width : po.headless ? 1920 : 1600;
    po.height = options.height ? options.height : po.headless ? 1080 : 900;
    po.fit_display = !options.width && !po.headless;
    std::unique_ptr<Platform> platform;
    try {
        platform = std::make_unique<Platform>(po, app);
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "warplab-viewer: error: %s\n", e.what());
        if (no_display()) std::fprintf(stderr, "warplab-viewer: no display here; try --tour DIR or --screenshot FILE\n");
        return 1;
    }
    if (!options.screenshot.empty()) return ended(run_screenshot(*platform, app, options));
    if (!options.tour.empty()) return ended(run_tour(*platform, app, options));

    // ---- 2. loop: events, time ----
    auto last = std::chrono::steady_clock::now();
    while (!app.quit) {
        platform->poll_events(app);
        const auto now = std::chrono::steady_clock::now();
        tick(app, std::chrono::duration<double>(now - last).count());
        last = now;

        // ---- 3. render ----
        platform->begin_frame(app);
        draw_frame(app);
        platform->render();
        platform->present();
    }

    // ---- 4. clean-up: the platform closes ImGui, the renderer and the window ----
    platform.reset();
    return ended(0);
}
