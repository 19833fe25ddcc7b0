// One frame: the layout for the window's size and mode, then every panel in it.
#include <imgui.h>

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
    ImGui::GetIO().FontGlobalScale = font_scale(size.x, size.y, app.presenter);
    ImGui::PushFont(f.ui);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float status_h = ImGui::GetTextLineHeight() + 2 * style.WindowPadding.y + 2;
    if (app.playground.open) {
        app.layout = playground_layout(size.x, size.y, ImGui::GetFrameHeight() + 2 * style.WindowPadding.y + 2);
    } else if (app.presenter) {
        const float header_h = px(f.big) + ImGui::GetTextLineHeight() + 2 * style.WindowPadding.y + 8;
        app.layout = presenter_layout(size.x, size.y, header_h, status_h);
    } else {
        const float header_h = ImGui::GetFrameHeight() + 2 * style.WindowPadding.y + 2;
        app.layout = desk_layout(size.x, size.y, header_h, status_h);
    }
    if (current_lab(app).id == "coalescing") app.layout = coalescing_layout(app.layout);
    if (current_lab(app).host_programs) app.layout = timeline_layout(app.layout);
    app.regions.clear();
    app.focus.hovered_thread.reset();
    current_trace(app);  // run it now, before any panel draws
    for (const PanelEntry& p : kPanels)
        if (app.layout.has(p.panel)) p.draw(app);
    ImGui::PopFont();
}

}  // namespace warplab::viewer
