// One frame: the layout for the window's size and mode, then every panel in it.
#include <imgui.h>

#include <algorithm>

#include "viewer/panels/draw_util.h"
#include "viewer/panels/panels.h"
#include "viewer/model/step_model.h"

namespace warplab::viewer {

namespace {

// Every panel of the list (viewer/model/layout.h), in its drawing order.
constexpr void (*kDraw[])(App&) = {
#define WARPLAB_PANEL_DRAW(id, name, draw, room, what) draw,
    WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_DRAW)
#undef WARPLAB_PANEL_DRAW
};

}  // namespace

void view_switch(App& app)
{
    if (app.layout.views.empty()) return;
    float width = ImGui::CalcTextSize("V ").x;
    for (const char* name : app.layout.views) width += ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(name).x;
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    wrap_unless_fits(width);
    ImGui::TextDisabled("V ");
    const ImVec2 first = ImGui::GetItemRectMin();
    for (std::size_t i = 0; i < app.layout.views.size(); ++i) {
        ImGui::SameLine();
        const bool shown = int(i) == app.layout.view;
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(shown ? palette().active : palette().muted), "%s", app.layout.views[i]);
        if (ImGui::IsItemClicked()) app.view = int(i);
    }
    add_region(app, "header.views", first, ImGui::GetItemRectMax());
}

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
    const float lesson_h = app.playground.open ? 0 : lesson_bar_height(app, size.x);  // the layouts leave it room above the status line
    LayoutNeeds needs;
    needs.lab_panel = lab_panel(current_lab(app).panel);
    needs.view = app.view;
    const TraceSlot& slot = current_trace(app);
    needs.faulted = !slot.run && !slot.pending;  // the threads panel shows why, with the lockstep offer
    if (const TracedRun* run = current_run(app)) {
        needs.step_reads_global = !memory_events(run->block, app.sel.step, wl::trace::Space::Global).empty();
        needs.uses_shared = !shared_arrays(run->block).empty();
    }
    if (app.playground.open) {
        app.layout = playground_layout(size.x, size.y, header_h);
    } else if (app.presenter) {
        app.layout = presenter_layout(size.x, size.y, header_h, status_h + lesson_h, needs);
    } else {
        const float steps_h = std::max(2 * ImGui::GetFrameHeightWithSpacing(), app.steps_content_h) + 2 * style.WindowPadding.y;
        app.layout = desk_layout(size.x, size.y, header_h, status_h + lesson_h, std::floor(steps_h), needs);
    }
    if (lesson_h > 0) app.layout = with_lesson_bar(app.layout, lesson_h);
    if (app.compare_widths && !app.playground.open) app.layout = compare_widths_layout(app.layout);
    if (app.compare_versions && !app.playground.open) app.layout = compare_versions_layout(app.layout);
    app.regions.clear();
    app.focus.hovered_thread.reset();
    for (int p = 0; p < kPanelCount; ++p)
        if (app.layout.has(Panel(p))) kDraw[p](app);
    ImGui::PopFont();
}

}  // namespace warplab::viewer
