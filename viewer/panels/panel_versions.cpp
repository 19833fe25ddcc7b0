// The lab's versions, each with its one-line idea. (What changed in the
// selected one is told above its source, beside the changed lines.)
#include <imgui.h>

#include <algorithm>
#include <string>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "viewer/app/program_view.h"

namespace warplab::viewer {

namespace {

// The column of ids: as wide as "v5-racy " or the lab's longest id and a space ("v3-wave64 ").
float id_width(const Lab& lab)
{
    float w = ImGui::CalcTextSize("v5-racy ").x;
    for (const VersionMeta& v : lab.versions) w = std::max(w, ImGui::CalcTextSize((std::string(v.id) + " ").c_str()).x);
    return w;
}

// The id, then the idea beside it, wrapped; the whole row selects the version.
// Where the rows do not all fit, the panel scrolls.
void version_row(App& app, std::size_t i)
{
    const VersionMeta& v = current_lab(app).versions[i];
    const float id_w = id_width(current_lab(app));
    const float wrap_w = ImGui::GetContentRegionAvail().x - id_w;
    const float h = ImGui::CalcTextSize(v.idea, nullptr, false, wrap_w).y;
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
    if (app.program) return launches_panel(app);  // a program's launches take its place
    if (begin_panel(app, Panel::Versions, current_lab(app).title.c_str())) {
        ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 4));
        for (std::size_t i = 0; i < current_lab(app).versions.size(); ++i) version_row(app, i);
        ImGui::PopStyleVar();
        ImGui::Spacing();
        wrapped_text(palette().muted, "up/down arrows change the version");
    }
    end_panel();
}

}  // namespace warplab::viewer
