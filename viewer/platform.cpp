#include "viewer/platform.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "viewer/app.h"
#include "viewer/draw_util.h"
#include "viewer/imgui_backend.h"

namespace warplab::viewer {

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
    case SDLK_ESCAPE: key = Key::Escape; return true;
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

Platform::Platform(const PlatformOptions& options, App& app) : headless_(options.headless)
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
    window_ = SDL_CreateWindow("warplab viewer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, options.width,
                               options.height, flags);
    if (!window_) throw sdl_error("cannot create the window");
    renderer_ = make_renderer(window_, headless_);
    if (!renderer_) throw sdl_error("cannot create an SDL renderer");

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
    app.fonts = load_fonts();
    if (!backend::init(window_, renderer_)) throw std::runtime_error("cannot start Dear ImGui's SDL backends");
}

Platform::~Platform()
{
    backend::shutdown();
    ImGui::DestroyContext();
    if (renderer_) SDL_DestroyRenderer(renderer_);
    if (window_) SDL_DestroyWindow(window_);
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

void Platform::follow_presenter_mode(App& app)
{
    if (styled_ && styled_presenter_ == app.presenter) return;
    apply_style(app.presenter);
    if (styled_ && !headless_) SDL_SetWindowFullscreen(window_, app.presenter ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
    styled_presenter_ = app.presenter;
    styled_ = true;
}

// Text is rasterized at the size it is shown (a 4K window gets 2x glyphs, not
// 1080p glyphs magnified); the scale is rounded to 5 % so that dragging the
// window's edge does not rebuild the atlas at every pixel.
void Platform::follow_font_scale(App& app)
{
    int w = 0, h = 0;
    SDL_GetWindowSize(window_, &w, &h);
    const float wanted = std::round(font_scale(float(w), float(h), app.presenter) * 20) / 20;
    if (wanted == app.fonts.scale) return;
    ImGui::GetIO().Fonts->Clear();
    app.fonts = load_fonts(wanted);
    backend::drop_fonts_texture();
}

void Platform::begin_frame(App& app)
{
    follow_presenter_mode(app);
    follow_font_scale(app);
    backend::new_frame();
    ImGui::NewFrame();
}

void Platform::render()
{
    end_frame();
    rasterize();
}

void Platform::end_frame() { ImGui::Render(); }

void Platform::rasterize()
{
    SDL_SetRenderDrawColor(renderer_, 255, 255, 255, 255);
    SDL_RenderClear(renderer_);
    backend::render(renderer_);
    SDL_RenderFlush(renderer_);  // the renderer batches; drawing happens here, not in present()
}

Image Platform::read_pixels() const
{
    Image img;
    SDL_GetRendererOutputSize(renderer_, &img.width, &img.height);
    img.rgba.resize(std::size_t(img.width) * img.height * 4);
    if (SDL_RenderReadPixels(renderer_, nullptr, SDL_PIXELFORMAT_RGBA32, img.rgba.data(), img.width * 4) != 0)
        throw sdl_error("cannot read the frame's pixels");
    return img;
}

void Platform::present() { SDL_RenderPresent(renderer_); }

std::string Platform::renderer_name() const
{
    SDL_RendererInfo info;
    if (SDL_GetRendererInfo(renderer_, &info) != 0) return "unknown";
    return std::string(SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "?") + ", " + info.name;
}

}  // namespace warplab::viewer
