// The desktop's platform: SDL2, its renderer (accelerated in a window,
// software headless) and Dear ImGui's SDL backends.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "viewer/app/app.h"
#include "viewer/platform/imgui_backend.h"
#include "viewer/platform/platform.h"
#include "warplab/version.h"

namespace warplab::viewer {

struct Window {
    SDL_Window* window = nullptr;
    SDL_Renderer* renderer = nullptr;
};

namespace {

std::runtime_error sdl_error(const std::string& what) { return std::runtime_error(what + ": " + SDL_GetError()); }

SDL_Renderer* make_renderer(SDL_Window* window, bool headless)
{
    if (!headless)
        if (SDL_Renderer* r = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC)) return r;
    return SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE);
}

bool key_of(SDL_Keycode sym, Key& key)
{
    switch (sym) {
    case SDLK_LEFT: key = Key::Left; return true;
    case SDLK_RIGHT: key = Key::Right; return true;
    case SDLK_UP: key = Key::Up; return true;
    case SDLK_DOWN: key = Key::Down; return true;
    case SDLK_SPACE: key = Key::Space; return true;
    case SDLK_f: key = Key::F; return true;
    case SDLK_w: key = Key::W; return true;
    case SDLK_c: key = Key::C; return true;
    case SDLK_d: key = Key::D; return true;
    case SDLK_v: key = Key::V; return true;
    case SDLK_ESCAPE: key = Key::Escape; return true;
    case SDLK_PAGEUP: key = Key::PageUp; return true;
    case SDLK_PAGEDOWN: key = Key::PageDown; return true;
    case SDLK_r: key = Key::R; return true;
    case SDLK_b: key = Key::B; return true;
    case SDLK_PERIOD: key = Key::Period; return true;
    default: return false;
    }
}

}  // namespace

bool no_display()
{
    const char* x = std::getenv("DISPLAY");
    const char* w = std::getenv("WAYLAND_DISPLAY");
    return !(x && *x) && !(w && *w);
}

Platform::Platform(const PlatformOptions& options, App& app) : window_(std::make_unique<Window>()), headless_(options.headless)
{
    if (headless_) {
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
        // Else SDL presents the offscreen window through an OpenGL texture (Mesa's
        // software rasteriser here): 25 ms a frame spent on pixels nobody sees.
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    }
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0)
        throw sdl_error(headless_ ? "cannot start SDL's offscreen video driver" : "cannot open a window (no display?)");
    Uint32 flags = SDL_WINDOW_ALLOW_HIGHDPI;
    flags |= headless_ ? SDL_WINDOW_HIDDEN : SDL_WINDOW_RESIZABLE;
    if (options.fullscreen && !headless_) flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
    WindowSize size{options.width, options.height};
    if (SDL_Rect usable; options.fit_display && SDL_GetDisplayUsableBounds(0, &usable) == 0)
        size = fitting_window(size, {usable.w, usable.h});
    const std::string title = "warplab viewer " + wl::version_text();
    window_->window = SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, size.width,
                                       size.height, flags);
    if (!window_->window) throw sdl_error("cannot create the window");
    window_->renderer = make_renderer(window_->window, headless_);
    if (!window_->renderer) throw sdl_error("cannot create an SDL renderer");

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
    app.fonts = load_fonts();
    if (!backend::init(window_->window, window_->renderer)) throw std::runtime_error("cannot start Dear ImGui's SDL backends");
}

Platform::~Platform()
{
    backend::shutdown();
    ImGui::DestroyContext();
    if (window_->renderer) SDL_DestroyRenderer(window_->renderer);
    if (window_->window) SDL_DestroyWindow(window_->window);
    SDL_Quit();
}

void Platform::poll_events(App& app)
{
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        backend::process_event(event);
        if (event.type == SDL_QUIT) app.quit = true;
        if (event.type != SDL_KEYDOWN || ImGui::GetIO().WantTextInput) continue;
        Key key;
        const bool repeatable = event.key.keysym.sym != SDLK_SPACE && event.key.keysym.sym != SDLK_f;
        if (key_of(event.key.keysym.sym, key) && (repeatable || !event.key.repeat)) on_key(app, key);
    }
}

WindowSize window_size(const Window& window)
{
    WindowSize size;
    SDL_GetWindowSize(window.window, &size.width, &size.height);
    return size;
}

void set_fullscreen(Window& window, bool fullscreen)
{
    SDL_SetWindowFullscreen(window.window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
}

void new_backend_frame(Window&) { backend::new_frame(); }

void drop_fonts_texture(Window&) { backend::drop_fonts_texture(); }

void Platform::rasterize()
{
    SDL_SetRenderDrawColor(window_->renderer, 255, 255, 255, 255);
    SDL_RenderClear(window_->renderer);
    backend::render(window_->renderer);
    SDL_RenderFlush(window_->renderer);  // the renderer batches; drawing happens here, not in present()
}

Image Platform::read_pixels() const
{
    Image img;
    SDL_GetRendererOutputSize(window_->renderer, &img.width, &img.height);
    img.rgba.resize(std::size_t(img.width) * img.height * 4);
    if (SDL_RenderReadPixels(window_->renderer, nullptr, SDL_PIXELFORMAT_RGBA32, img.rgba.data(), img.width * 4) != 0)
        throw sdl_error("cannot read the frame's pixels");
    return img;
}

void Platform::present() { SDL_RenderPresent(window_->renderer); }

std::string Platform::renderer_name() const
{
    SDL_RendererInfo info;
    if (SDL_GetRendererInfo(window_->renderer, &info) != 0) return "unknown";
    return std::string(SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "?") + ", " + info.name;
}

}  // namespace warplab::viewer
