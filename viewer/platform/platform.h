// The window, its renderer and Dear ImGui's context and backends, behind one
// interface: platform_sdl.cpp (the desktop: SDL2 and its renderer; headless
// draws with SDL's offscreen driver and software renderer, so screenshots,
// the tour and the benchmark need no display) and platform_web.cpp (the
// browser: emscripten's GLFW and WebGL2). What they share is platform.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "labs/common/png_io.h"

namespace warplab::viewer {

struct App;

struct WindowSize {
    int width = 0, height = 0;
    bool operator==(const WindowSize&) const = default;
};

struct PlatformOptions {
    int width = 1600, height = 900;
    bool headless = false;     // offscreen driver, software renderer, no window on screen
    bool fullscreen = false;   // presenter mode from the start
    bool fit_display = false;  // the size is the default, not asked for: shrink it to the display (fitting_window)
};

// The window's size on a display whose usable area (without task bars) is
// `usable`: `wanted` where it fits, else as much of each side as there is,
// so a 4:3 projector of 1024x768 gets the whole screen, not a 1600x900 window
// partly off it.
WindowSize fitting_window(WindowSize wanted, WindowSize usable);

using Image = RgbaImage;  // row-major RGBA (labs/common/png_io.h reads and writes it)

// A platform's window, renderer and ImGui backends (defined by platform_sdl.cpp or platform_web.cpp).
struct Window;

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
    void rasterize();             // the renderer draws them into the back buffer
    Image read_pixels() const;    // the back buffer, after render() and before present()
    void present();
    std::string renderer_name() const;

private:
    void follow_presenter_mode(App& app);
    void follow_font_scale(App& app);  // rebuilds the fonts when the window calls for another size
    std::unique_ptr<Window> window_;
    bool headless_ = false;
    bool styled_presenter_ = false;
    bool styled_ = false;
};

// The window's parts that platform.cpp's shared code asks each platform for.
WindowSize window_size(const Window& window);           // in the units ImGui lays out in
void set_fullscreen(Window& window, bool fullscreen);
void new_backend_frame(Window& window);                 // the backends' part of ImGui's new frame
void drop_fonts_texture(Window& window);                // the next frame uploads the rebuilt atlas

// True where there is no display to open a window on (no DISPLAY, no WAYLAND_DISPLAY; never in a browser).
bool no_display();

}  // namespace warplab::viewer
