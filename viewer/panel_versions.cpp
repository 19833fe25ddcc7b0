// The lab's versions, each with its one-line idea. (What changed in the
// selected one is told above its source, beside the changed lines.)
#include <imgui.h>

#include "viewer/draw_util.h"
#include "viewer/format.h"
#include "viewer/panels.h"

namespace warplab::viewer {

namespace {

float id_width() { return ImGui::CalcTextSize("v5-racy ").x; }

// Whether every idea fits wrapped in the panel; if not, each gets one line.
bool ideas_fit_wrapped(App& app)
{
    const float wrap_w = ImGui::GetContentRegionAvail().x - id_width();
    float h = 0;
    for (const VersionMeta& v : current_lab(app).versions)
        h += ImGui::CalcTextSize(v.idea, nullptr, false, wrap_w).y + 4;
    return h + ImGui::GetTextLineHeightWithSpacing() < ImGui::GetContentRegionAvail().y;
}

// The id, then the idea beside it (wrapped, or on one line); the whole row selects the version.
void version_row(App& app, std::size_t i, bool wrap)
{
    const VersionMeta& v = current_lab(app).versions[i];
    const float id_w = id_width();
    const float wrap_w = wrap ? ImGui::GetContentRegionAvail().x - id_w : 0.0f;
    const float h = wrap ? ImGui::CalcTextSize(v.idea, nullptr, false, wrap_w).y : ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::PushID(int(i));
    if (ImGui::Selectable("##v", i == app.sel.version, 0, ImVec2(0, h))) select_version(app, i);
    ImGui::PopID();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddText(p, v.variant ? palette().partial_outline : palette().active, v.id);
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(p.x + id_w, p.y), palette().text, v.idea, nullptr, wrap_w);
}

}  // namespace

void versions_panel(App& app)
{
    if (begin_panel(app, Panel::Versions, current_lab(app).title.c_str())) {
        ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 4));
        const bool wrap = ideas_fit_wrapped(app);
        for (std::size_t i = 0; i < current_lab(app).versions.size(); ++i) version_row(app, i, wrap);
        ImGui::PopStyleVar();
        ImGui::Spacing();
        ImGui::TextDisabled("up/down arrows change the version");
    }
    end_panel();
}

}  // namespace warplab::viewer
