#include "viewer/platform/headless.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "labs/common/png_io.h"

namespace warplab::viewer {

namespace {

std::string tour_name(const App& app, const char* suffix)
{
    std::string id = current_version(app).id;
    return current_lab(app).id + "_" + id + suffix;
}

// A page that shows the tour in order, for a browser.
void write_index(const std::filesystem::path& dir, const std::vector<std::pair<std::string, std::vector<std::string>>>& pages)
{
    std::ofstream html(dir / "index.html");
    html << "<!doctype html><meta charset=utf-8><title>warplab tour</title>\n"
            "<style>body{font-family:sans-serif}img{width:100%;border:1px solid #999}</style>\n";
    for (const auto& [version, files] : pages) {
        html << "<h2>" << version << "</h2>\n";
        for (const std::string& f : files) html << "<p>" << f << "<br><img src=\"" << f << "\" loading=lazy></p>\n";
    }
}

// A version without a trace: one that runs only on a GPU (and none is here), or one that faulted.
const char* no_trace_suffix(const App& app) { return current_version(app).gpu_only ? "_gpu_only.png" : "_failed.png"; }

}  // namespace

Image frame_image(Platform& platform, App& app)
{
    // A lesson's slide may change lab, version, step and schedule at once: the top bar's height follows a
    // frame later (it is measured as drawn) and the source's scroll to the step a frame after that.
    render_frames(platform, app, app.lesson.lesson ? 5 : 3);
    Image img = platform.read_pixels();
    platform.present();
    return img;
}

void render_frames(Platform& platform, App& app, int frames)
{
    app.animate = false;
    for (int i = 0; i < frames; ++i) {
        if (i) platform.present();
        platform.begin_frame(app);
        draw_frame(app);
        platform.render();
    }
}

int run_screenshot(Platform& platform, App& app, const Options& options)
{
    const Image img = frame_image(platform, app);
    try {
        write_png(options.screenshot, img);
        if (!options.layout_json.empty()) {
            std::ofstream out(options.layout_json);
            if (!(out << layout_document(app, img).dump(1) << "\n")) throw std::runtime_error("cannot write " + options.layout_json);
        }
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "warplab-viewer: error: %s\n", e.what());
        return 1;
    }
    std::printf("warplab-viewer: wrote %s (%dx%d, step %u): %s\n", options.screenshot.c_str(), img.width, img.height,
                app.sel.step, status_text(app).c_str());
    return 0;
}

int run_tour(Platform& platform, App& app, const Options& options)
{
    if (app.lesson.lesson) return run_lesson_tour(platform, app, options);
    const std::filesystem::path dir = options.tour;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::vector<std::pair<std::string, std::vector<std::string>>> pages;
    std::size_t written = 0;
    try {
        for (std::size_t v = 0; v < current_lab(app).versions.size(); ++v) {
            select_version(app, v);
            pages.push_back({current_version(app).id, {}});
            const std::uint32_t steps = std::max(1u, step_count(app));
            for (std::uint32_t s = 0; s < steps; ++s) {
                set_step(app, s);
                const std::string name = tour_name(app, step_count(app) ? printf_string("_step%02u.png", s).c_str() : no_trace_suffix(app));
                write_png((dir / name).string(), frame_image(platform, app));
                pages.back().second.push_back(name);
                ++written;
            }
        }
        write_index(dir, pages);
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "warplab-viewer: error: %s\n", e.what());
        return 1;
    }
    std::printf("warplab-viewer: wrote %zu pictures of %s (every version, every step) to %s; open %s in a browser\n", written,
                current_lab(app).title.c_str(), dir.string().c_str(), (dir / "index.html").string().c_str());
    return 0;
}

}  // namespace warplab::viewer
