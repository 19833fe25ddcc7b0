// The window, its SDL renderer and Dear ImGui's context and backends.
// Headless (screenshots, the tour, the benchmark) draws with SDL's offscreen
// driver and software renderer, so it runs with no display at all.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "labs/common/png_io.h"

struct SDL_Window;
struct SDL_Renderer;

namespace warplab::viewer {

struct App;

struct PlatformOptions {
    int width = 1600, height = 900;
    bool headless = false;    // offscreen driver, software renderer, no window on screen
    bool fullscreen = false;  // presenter mode from the start
};

using Image = RgbaImage;  // row-major RGBA (labs/common/png_io.h reads and writes it)

class Platform {
public:
    // Throws std::runtime_error (no display, no renderer) with one sentence.
    explicit Platform(const PlatformOptions& options, App& app);
    ~Platform();
    Platform(const Platform&) = delete;
    Platform& operator=(const Platform&) = delete;

    void poll_events(App& app);   // keys, quit, resize
    void begin_frame(App& app);   // ImGui frame at the window's size; fonts and style for the mode
    void render();                // end_frame() then rasterize()
    void end_frame();             // ImGui builds its draw lists
    void rasterize();             // the SDL renderer draws them into the back buffer
    Image read_pixels() const;    // the back buffer, after render() and before present()
    void present();
    std::string renderer_name() const;

private:
    void follow_presenter_mode(App& app);
    void follow_font_scale(App& app);  // rebuilds the fonts when the window calls for another size
    SDL_Window* window_ = nullptr;
    SDL_Renderer* renderer_ = nullptr;
    bool headless_ = false;
    bool styled_presenter_ = false;
    bool styled_ = false;
};

// True where there is no display to open a window on (no DISPLAY, no WAYLAND_DISPLAY).
bool no_display();

}  // namespace warplab::viewer
