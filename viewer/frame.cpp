// One frame: the layout for the window's size and mode, then every panel in it.
#include <imgui.h>

#include <algorithm>

#include "viewer/draw_util.h"
#include "viewer/panels.h"
#include "viewer/step_model.h"

namespace warplab::viewer {

namespace {

// Every panel of the list (viewer/layout.h), in its drawing order.
constexpr void (*kDraw[])(App&) = {
#define WARPLAB_PANEL_DRAW(id, name, draw, what) draw,
    WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_DRAW)
#undef WARPLAB_PANEL_DRAW
};

}  // namespace

void draw_frame(App& app)
{
    const ImVec2 size = ImGui::GetIO().DisplaySize;
    const FontSet& f = fonts(app);
    ImGui::GetIO().FontGlobalScale = font_scale(size.x, size.y, app.presenter) / app.fonts.scale;  // ~1: see follow_font_scale
    ImGui::PushFont(f.ui);
    const ImGuiStyle& style = ImGui::GetStyle();
    current_trace(app);  // run it now, before any panel draws
    // The status line wraps: as many lines as its text takes at this width.
    const float status_w = size.x - 2 * style.WindowPadding.x;
    const auto wrapped_h = [&](const std::string& text) {  // as wrapped_text lays it out
        return ImGui::CalcTextSize(wrap_at_spaces(text, status_w).c_str(), nullptr, false, status_w).y;
    };
    float status_text_h = wrapped_h(status_text(app));
    if (const std::string w = warning_text(app); !w.empty()) status_text_h += wrapped_h(w) + style.ItemSpacing.y;
    const float status_h = status_text_h + 2 * style.WindowPadding.y + 2;
    // The top bar's contents wrap too; last frame's height holds until they change.
    const float one_row = app.presenter ? px(f.big) + ImGui::GetTextLineHeight() + 8 : ImGui::GetFrameHeight() + 2;
    const float header_h = std::max(one_row, app.header_content_h) + 2 * style.WindowPadding.y;
    if (app.playground.open) {
        app.layout = playground_layout(size.x, size.y, header_h);
    } else if (app.presenter) {
        const TracedRun* run = current_run(app);
        const bool global = !run || !memory_events(run->block, app.sel.step, wl::trace::Space::Global).empty();
        app.layout = presenter_layout(size.x, size.y, header_h, status_h, global);
    } else {
        const float steps_h = std::max(2 * ImGui::GetFrameHeightWithSpacing(), app.steps_content_h) + 2 * style.WindowPadding.y;
        app.layout = desk_layout(size.x, size.y, header_h, status_h, std::floor(steps_h));
    }
    switch (current_lab(app).panel) {  // a lab's own panel takes the place of those it has no use for
    case LabPanel::Sweep: app.layout = sweep_layout(app.layout); break;
    case LabPanel::Timeline: app.layout = timeline_layout(app.layout); break;
    case LabPanel::Image: app.layout = image_layout(app.layout); break;
    case LabPanel::None: break;
    }
    if (app.compare_widths && !app.playground.open) app.layout = compare_widths_layout(app.layout);
    app.regions.clear();
    app.focus.hovered_thread.reset();
    for (int p = 0; p < kPanelCount; ++p)
        if (app.layout.has(Panel(p))) kDraw[p](app);
    ImGui::PopFont();
}

}  // namespace warplab::viewer
