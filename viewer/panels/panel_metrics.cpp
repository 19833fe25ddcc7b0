// The numbers behind the pictures: the per-step table of this version (the
// same as `warplab trace`), with Nsight Compute's counts of the block recorded
// on a GPU under the totals, and every version's totals side by side. Each
// column header has a "(?)" that says what it counts.
#include <imgui.h>

#include <stdexcept>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

struct Column {
    const char* name;
    const char* help;
};

constexpr Column kStepColumns[] = {
    {"step", "One stage of the algorithm: the code between two __syncthreads() of the block, or one warp-level "
             "round (__syncwarp() or shuffle) in a warp-level tail. Click a row to go to it."},
    {"lines", "The kernel-file lines whose accesses fall in the step."},
    {"threads", "Threads that accessed memory, shuffled or voted in the step."},
    {"warps", "Warps with at least one active thread."},
    {"partial", "Warps in which only some of the lanes took part in an access: divergence. The others sit masked off."},
    {"shared wf", "Shared-memory wavefronts, actual / ideal, over the step's loads and stores. For 4-byte accesses the "
                  "ideal is one per warp instruction; anything above it is bank conflicts."},
    {"worst", "The worst n-way bank conflict of one warp instruction in the step: wavefronts / ideal."},
    {"sectors", "Global memory: 32-byte sectors per request (warp instruction), actual (ideal). 4 is ideal for 32 "
                    "lanes reading consecutive 4-byte words."},
};

constexpr Column kVersionColumns[] = {
    {"version", "Click a row to show that version."},
    {"steps", "Steps in the watched block."},
    {"partial", "Partially-active warps summed over the steps: how much divergence the block sees."},
    {"shared wf", "Shared-memory wavefronts over the whole block, actual / ideal."},
    {"worst", "The worst n-way bank conflict of any warp instruction."},
    {"sectors", "Global-memory 32-byte sectors per request over the whole block, actual (ideal)."},
};

// Column names with a small "?" badge in room kept by trailing spaces; hovering the header explains it.
template <std::size_t N> void header_row(const Column (&columns)[N])
{
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (std::size_t i = 0; i < N; ++i) {
        ImGui::TableSetColumnIndex(int(i));
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::TableHeader((std::string(columns[i].name) + "    ").c_str());
        help_tooltip(columns[i].help);
        const float r = ImGui::GetTextLineHeight() * 0.32f;
        const ImVec2 c(p.x + ImGui::CalcTextSize(columns[i].name).x + r + 5, p.y + ImGui::GetTextLineHeight() * 0.5f);
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddCircle(c, r, palette().muted, 12, 1.2f);
        text_centered(dl, ImGui::GetFont(), r * 1.7f, c, palette().muted, "?");
    }
}

// A row whose first cell spans the row as a selectable; returns true when clicked.
bool row_start(const std::string& first, bool current)
{
    ImGui::TableNextRow();
    if (current) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, palette().step_line);
    ImGui::TableSetColumnIndex(0);
    return ImGui::Selectable(first.c_str(), false, ImGuiSelectableFlags_SpanAllColumns);
}

void cells(std::initializer_list<std::string> texts)
{
    for (const std::string& t : texts) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(t.c_str());
    }
}

// Nsight Compute's recorded per-block counts of the version (nullopt: none),
// read once; a malformed file counts as none and says why in the status.
const std::optional<MeasuredCounts>& measured_of(App& app)
{
    const Lab& lab = current_lab(app);
    const std::string key = lab.id + " " + current_version(app).id;
    auto it = app.measured.find(key);
    if (it != app.measured.end()) return it->second;
    std::optional<MeasuredCounts> m;
    try {
        m = measured_counts(lab, current_version(app).id);
    } catch (const std::invalid_argument& e) {
        app.timing.load_error = e.what();
    }
    return app.measured.emplace(key, std::move(m)).first->second;
}

std::string count_text(double v) { return v == double(long(v)) ? printf_string("%.0f", v) : printf_string("%.1f", v); }

// Under the totals, one line: what Nsight Compute counted in the same terms
// (shared wavefronts, loads and stores; global sectors per load request)
// where the launch is the recorded one; otherwise which launch that was.
// Hovering it gives all six counts beside warplab's.
void measured_line(App& app, const TracedRun& run)
{
    const std::optional<MeasuredCounts>& m = measured_of(app);
    if (!m) return;
    const TraceKey key = trace_key(app, app.sel.version);
    RunRequest req;
    req.n = key.n;
    req.type = key.type;
    req.block = key.block;
    const CountedLaunch launch = launch_of(req, run.result);
    const std::string label = "measured on " + short_gpu_name(m->gpu) + " (ncu)";
    const MemoryCounts c = counted(run.totals), &p = m->per_block;
    if (launch != m->launch) {
        wrapped_text(palette().muted, label + ": for " + describe(m->launch) + " only (?)");
        help_tooltip(("Nsight Compute counted this version on the " + m->gpu + " for " + describe(m->launch) +
                      "; this trace is " + describe(launch) + ". `warplab trace` with that launch prints both.").c_str());
        return;
    }
    wrapped_text(palette().muted, printf_string("%s, per block: shared wf %s, sectors %.1f per load (?)", label.c_str(),
                                                count_text(p.shared_load_wavefronts + p.shared_store_wavefronts).c_str(),
                                                p.global_load_requests > 0 ? p.global_load_sectors / p.global_load_requests : 0.0));
    std::string not_compared;
    for (const std::string& note : m->not_compared) not_compared += "\nnot compared: " + note;
    help_tooltip((printf_string("%s, %s, per block (counters over every block / blocks); counted by warplab:\n"
                               "shared loads: %s instructions, %s wavefronts (counted %s, %s)\n"
                               "shared stores: %s instructions, %s wavefronts (counted %s, %s)\n"
                               "global loads: %s requests, %s sectors (counted %s, %s)",
                               m->tool.c_str(), m->date.c_str(), count_text(p.shared_load_requests).c_str(),
                               count_text(p.shared_load_wavefronts).c_str(), count_text(c.shared_load_requests).c_str(),
                               count_text(c.shared_load_wavefronts).c_str(), count_text(p.shared_store_requests).c_str(),
                               count_text(p.shared_store_wavefronts).c_str(), count_text(c.shared_store_requests).c_str(),
                               count_text(c.shared_store_wavefronts).c_str(), count_text(p.global_load_requests).c_str(),
                               count_text(p.global_load_sectors).c_str(), count_text(c.global_load_requests).c_str(),
                               count_text(c.global_load_sectors).c_str()) +
                  not_compared)
                     .c_str());
}

constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                        ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;

void step_table(App& app, const TracedRun& run, float height)
{
    ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(3, 1));
    const bool open = ImGui::BeginTable("##steps", 8, kTableFlags, ImVec2(0, height));
    ImGui::PopStyleVar();
    if (!open) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    header_row(kStepColumns);
    for (const auto& m : run.steps) {
        const bool current = m.step == app.sel.step;
        if (row_start(std::to_string(m.step), current)) set_step(app, m.step);
        if (current && app.follow_step.metrics) ImGui::SetScrollHereY(0.5f), app.follow_step.metrics = false;
        cells({lines_text(m.lines, 3), std::to_string(m.active_threads), std::to_string(m.active_warps),
               std::to_string(m.partial_warps), shared_cell(m.shared_load, m.shared_store),
               ways_text(std::max(m.shared_load.worst_ways, m.shared_store.worst_ways)),
               sectors_cell(m.global_load, m.global_store)});
    }
    const auto& t = run.totals;
    row_start("total", false);
    cells({"", "", "", std::to_string(t.partial_warp_steps), shared_cell(t.shared_load, t.shared_store),
           ways_text(std::max(t.shared_load.worst_ways, t.shared_store.worst_ways)), sectors_cell(t.global_load, t.global_store)});
    ImGui::EndTable();
    if (!run.per_machine_instruction) wrapped_text(palette().muted, wl::trace::kPerPtxInstructionNote);
    measured_line(app, run);
}

void version_table(App& app)
{
    if (!ImGui::BeginTable("##versions", 6, kTableFlags, ImVec2(0, 0))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    header_row(kVersionColumns);
    const std::size_t count = current_lab(app).versions.size();
    for (std::size_t i = 0; i < count; ++i) {
        ImGui::PushID(int(i));
        const TotalsSlot slot = totals_of(app, i);  // in the browser, the totals alone travel back
        if (row_start(current_lab(app).versions[i].id, i == app.sel.version)) select_version(app, i);
        if (slot.totals) {
            const auto& t = *slot.totals;
            cells({std::to_string(t.steps), std::to_string(t.partial_warp_steps), shared_cell(t.shared_load, t.shared_store),
                   ways_text(std::max(t.shared_load.worst_ways, t.shared_store.worst_ways)),
                   sectors_cell(t.global_load, t.global_store)});
        } else {
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().partial_outline), slot.pending ? "tracing" : slot.fault ? "faulted" : "cannot run");
        }
        ImGui::PopID();
    }
    ImGui::EndTable();
}

}  // namespace

void metrics_panel(App& app)
{
    if (begin_panel(app, Panel::Metrics, "Metrics", ImGuiWindowFlags_NoScrollbar)) {
        if (const TracedRun* run = current_run(app)) {
            ImGui::Text("%s, step by step", current_version(app).id);
            step_table(app, *run, ImGui::GetContentRegionAvail().y * 0.52f);
        } else {
            wrapped_text(palette().muted, std::string(current_version(app).id) + ": no trace");
        }
        ImGui::TextUnformatted("Every version, whole block");
        version_table(app);
    }
    end_panel();
}

}  // namespace warplab::viewer
