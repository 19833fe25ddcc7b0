// A program's launches (--run), where a lab lists its versions: each launch's
// kernel, grid, block, dynamic shared memory, emulated time and the host line
// that made it; a watched one is selected to step through, an unwatched one
// says how to watch it. Below, the program's own output and exit code; or
// nvcc's messages when it did not build.
#include <imgui.h>

#include <iterator>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "viewer/app/program_view.h"

namespace warplab::viewer {

namespace {

using wl::cudart::LaunchRecord;

// Which launch of its kernel r is, from 1: what --watch kernel:n counts.
unsigned launch_of_kernel(const ProgramLab& p, const LaunchRecord& r)
{
    unsigned n = 0;
    for (const LaunchRecord& other : p.run.launches) n += other.kernel == r.kernel && other.index <= r.index;
    return n;
}

void launch_row(App& app, const ProgramLab& p, const LaunchRecord& r)
{
    const std::optional<std::size_t> version = version_of_launch(p, r.index);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(int(r.index));
    const bool selected = version && *version == app.sel.version;
    const ImU32 colour = !r.error.empty() ? palette().fault_text : version ? palette().text : palette().muted;
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    if (ImGui::Selectable(std::to_string(r.index).c_str(), selected, ImGuiSelectableFlags_SpanAllColumns) && version)
        select_version(app, *version);
    if (ImGui::IsItemHovered())
        help_tooltip(version ? "step through this launch's watched block"
                             : printf_string("not watched: --watch '%s:%u' after --run's files traces it", r.kernel.c_str(),
                                             launch_of_kernel(p, r))
                                   .c_str());
    if (selected) add_region(app, "launches.selected", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.kernel.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(dims_text(r.grid).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(dims_text(r.block).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", r.emulated_ms);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(!r.error.empty() ? "fault" : version ? printf_string("block %u", r.watched_block).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(wl::cudart::short_host_line(r).c_str());
    ImGui::PopStyleColor();
    ImGui::PopID();
}

void launch_table(App& app, const ProgramLab& p)
{
    // Scrolled sideways where the panel is narrow: the host line comes last, after what a launch ran.
    constexpr ImGuiTableFlags flags =
        ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
    const float rows = float(std::min<std::size_t>(p.run.launches.size(), 12) + 1);
    const float height = rows * ImGui::GetTextLineHeightWithSpacing() + 4 + ImGui::GetStyle().ScrollbarSize;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    constexpr const char* columns[] = {"#", "kernel", "grid", "block", "ms", "trace", "launched at"};
    if (!ImGui::BeginTable("##launches", int(std::size(columns)), flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* column : columns) ImGui::TableSetupColumn(column);
    ImGui::TableHeadersRow();
    for (const LaunchRecord& r : p.run.launches) launch_row(app, p, r);
    ImGui::EndTable();
    add_region(app, "launches.table", at, ImGui::GetItemRectMax());
}

void output_section(App& app, const ProgramLab& p)
{
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const std::string exit = !p.run.stopped_by.empty() ? "stopped by " + p.run.stopped_by : printf_string("exit code %d", p.run.exit_code);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(p.run.exit_code ? palette().partial_outline : palette().muted),
                       "the program's output (%s):", exit.c_str());
    wrapped_text(palette().text, p.run.output.empty() ? "(none)" : p.run.output);
    if (!p.run.errors.empty()) wrapped_text(palette().partial_outline, p.run.errors);
    add_region(app, "launches.output", at, ImVec2(at.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y));
}

}  // namespace

void launches_panel(App& app)
{
    const ProgramLab& p = *app.program;
    if (begin_panel(app, Panel::Versions, p.lab.title.c_str())) {
        if (!p.failure.empty()) {
            const ImVec2 at = ImGui::GetCursorScreenPos();
            wrapped_text(palette().partial_outline, p.failure);
            add_region(app, "launches.failure", at, ImVec2(at.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y));
        } else {
            if (!p.run.launches.empty()) launch_table(app, p);
            wrapped_text(palette().muted, "ms: the emulator's time, not GPU time; up/down arrows change the watched launch");
            ImGui::Spacing();
            output_section(app, p);
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
