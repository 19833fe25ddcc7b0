// A program's launches (--run), where a lab lists its versions: each launch's
// kernel, grid, block, dynamic shared memory, emulated time and the host line
// that made it; a watched one is selected to step through, an unwatched one
// says how to watch it. Below, the program's own output and exit code; or
// nvcc's messages when it did not build.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
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

// A grid's or block's sizes without the trailing 1s: "196", "16×16", "4×4×4".
std::string sizes_text(const unsigned (&d)[3])
{
    const int shown = d[2] != 1 ? 3 : d[1] != 1 ? 2 : 1;
    std::string out = std::to_string(d[0]);
    for (int i = 1; i < shown; ++i) out += "×" + std::to_string(d[i]);
    return out;
}

// The host line that made the launch ("reduction.cu:42"), in the room the
// table leaves it: past the other columns to the panel's edge, however the
// table is scrolled. A longer file name loses its middle ("…"), never the
// line number; the full path shows on hover.
void host_line_cell(App& app, const LaunchRecord& r, bool first)
{
    const std::string text = wl::cudart::short_host_line(r);
    const std::size_t colon = text.rfind(':');
    const std::string file = text.substr(0, colon), line = colon == std::string::npos ? "" : text.substr(colon);
    const ImGuiTable* table = ImGui::GetCurrentTable();
    const float start = ImGui::GetCursorScreenPos().x + ImGui::GetScrollX();
    // On the table's first frame the other columns have no widths yet: the least, not a room they then take back.
    const float room = table->IsInitializing ? 0 : table->InnerClipRect.Max.x - start - ImGui::GetStyle().CellPadding.x - ImGui::CalcTextSize(line.c_str()).x;
    const std::string shown = elided(file, room) + line;
    ImGui::TextUnformatted(shown.c_str());
    if (first) add_region(app, "launches.host_line", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    if (ImGui::IsMouseHoveringRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()) && ImGui::IsWindowHovered())
        ImGui::SetTooltip("%s", r.host_line.empty() ? "no host line recorded" : r.host_line.c_str());
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
    ImGui::TextUnformatted(sizes_text(r.grid).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(sizes_text(r.block).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", r.emulated_ms);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(!r.error.empty() ? "fault" : version ? printf_string("block %u", r.watched_block).c_str() : "-");
    ImGui::TableNextColumn();
    host_line_cell(app, r, r.index == p.run.launches.front().index);
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
    // The host line's width is its text's (cut to the room left), not its header's, which is cut instead where the room is less.
    for (const char* column : columns) ImGui::TableSetupColumn(column, column == columns[std::size(columns) - 1] ? ImGuiTableColumnFlags_NoHeaderWidth : 0);
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
