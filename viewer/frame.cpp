// One frame: the layout for the window's size and mode, then every panel in it.
#include <imgui.h>

#include <algorithm>

#include "viewer/draw_util.h"
#include "viewer/panels.h"

namespace warplab::viewer {

namespace {

using PanelFn = void (*)(App&);

struct PanelEntry {
    Panel panel;
    PanelFn draw;
};

// Drawing order matters once: the threads panel records the hovered thread
// that the shared-memory panels highlight.
constexpr PanelEntry kPanels[] = {
    {Panel::Header, header_panel},   {Panel::Versions, versions_panel},  {Panel::Steps, steps_panel},
    {Panel::Threads, threads_panel}, {Panel::SharedValues, shared_values_panel}, {Panel::Banks, banks_panel},
    {Panel::Source, source_panel},   {Panel::Global, global_panel},     {Panel::Metrics, metrics_panel},
    {Panel::Time, time_panel},       {Panel::Status, status_panel}, {Panel::BankPlayground, bank_playground_panel},
    {Panel::Coalescing, coalescing_panel}, {Panel::Occupancy, occupancy_panel}, {Panel::Timeline, timeline_panel},
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
    float status_text_h = ImGui::CalcTextSize(status_text(app).c_str(), nullptr, false, status_w).y;
    if (const std::string w = warning_text(app); !w.empty())
        status_text_h += ImGui::CalcTextSize(w.c_str(), nullptr, false, status_w).y + style.ItemSpacing.y;
    const float status_h = status_text_h + 2 * style.WindowPadding.y + 2;
    // The top bar's contents wrap too; last frame's height holds until they change.
    const float one_row = app.presenter ? px(f.big) + ImGui::GetTextLineHeight() + 8 : ImGui::GetFrameHeight() + 2;
    const float header_h = std::max(one_row, app.header_content_h) + 2 * style.WindowPadding.y;
    if (app.playground.open) {
        app.layout = playground_layout(size.x, size.y, header_h);
    } else if (app.presenter) {
        app.layout = presenter_layout(size.x, size.y, header_h, status_h);
    } else {
        const float steps_h = std::max(2 * ImGui::GetFrameHeightWithSpacing(), app.steps_content_h) + 2 * style.WindowPadding.y;
        app.layout = desk_layout(size.x, size.y, header_h, status_h, std::floor(steps_h));
    }
    if (current_lab(app).id == "coalescing") app.layout = coalescing_layout(app.layout);
    if (current_lab(app).host_programs) app.layout = timeline_layout(app.layout);
    app.regions.clear();
    app.focus.hovered_thread.reset();
    for (const PanelEntry& p : kPanels)
        if (app.layout.has(p.panel)) p.draw(app);
    ImGui::PopFont();
}

}  // namespace warplab::viewer
