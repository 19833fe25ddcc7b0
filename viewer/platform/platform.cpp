// What every platform shares: the frame's order, presenter mode's style and
// the fonts' scale. The window itself is platform_sdl.cpp's or platform_web.cpp's.
#include "viewer/platform/platform.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "viewer/app/app.h"
#include "viewer/panels/draw_util.h"

namespace warplab::viewer {

WindowSize fitting_window(WindowSize wanted, WindowSize usable)
{
    if (usable.width <= 0 || usable.height <= 0) return wanted;  // the display said nothing
    return {std::min(wanted.width, usable.width), std::min(wanted.height, usable.height)};
}

void Platform::follow_presenter_mode(App& app)
{
    if (styled_ && styled_presenter_ == app.presenter) return;
    apply_style(app.presenter);
    if (styled_ && !headless_) set_fullscreen(*window_, app.presenter);
    styled_presenter_ = app.presenter;
    styled_ = true;
}

// Text is rasterized at the size it is shown (a 4K window gets 2x glyphs, not
// 1080p glyphs magnified); the scale is rounded to 5 % so that dragging the
// window's edge does not rebuild the atlas at every pixel.
void Platform::follow_font_scale(App& app)
{
    const WindowSize size = window_size(*window_);
    const float wanted = std::round(font_scale(float(size.width), float(size.height), app.presenter) * 20) / 20;
    if (wanted == app.fonts.scale) return;
    ImGui::GetIO().Fonts->Clear();
    app.fonts = load_fonts(wanted);
    drop_fonts_texture(*window_);
}

void Platform::begin_frame(App& app)
{
    follow_presenter_mode(app);
    follow_font_scale(app);
    new_backend_frame(*window_);
    ImGui::NewFrame();
}

void Platform::render()
{
    end_frame();
    rasterize();
}

void Platform::end_frame() { ImGui::Render(); }

}  // namespace warplab::viewer
