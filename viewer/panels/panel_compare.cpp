// Two versions side by side (D): the step table of the version the selected
// one is compared with (the previous one; for the user's kernel, the version it
// stands in for; the one --compare or a lesson's slide names; for a program's
// launch, a lab's version) beside its own, aligned by step, as `warplab trace --compare`
// prints it: one value where both agree, "a -> b" where they differ, the first
// step whose accesses differ marked. A row is a step: a click goes to it.
#include <imgui.h>

#include <optional>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "warplab/trace/compare.h"

namespace warplab::viewer {

namespace {

constexpr int kMetricColumns = 7;  // threads, warps, partial, shared wf, worst, global ld/st, sectors

// A step's cells of one run, or none where the run has no such step.
std::optional<std::array<std::string, kMetricColumns>> metric_cells(const TracedRun& run, std::size_t step)
{
    if (step >= run.steps.size()) return std::nullopt;
    const wl::trace::StepMetrics& s = run.steps[step];
    return std::array<std::string, kMetricColumns>{std::to_string(s.active_threads), std::to_string(s.active_warps),
                                                   std::to_string(s.partial_warps), shared_cell(s.shared_load, s.shared_store),
                                                   ways_text(std::max(s.shared_load.worst_ways, s.shared_store.worst_ways)),
                                                   requests_cell(s.global_load, s.global_store), sectors_cell(s.global_load, s.global_store)};
}

std::string lines_of(const TracedRun& run, std::size_t step)
{
    return step < run.steps.size() ? lines_text(run.steps[step].lines, 3) : "none";
}

// One value where both agree; where they differ, on the changed colour,
// "a → b", or in a narrow panel (a projector's 4:3) a above b.
void both_cell(const std::string& a, const std::string& b, bool stacked)
{
    ImGui::TableNextColumn();
    if (a == b) {
        ImGui::TextUnformatted(a.c_str());
        return;
    }
    ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, palette().changed_line);
    ImGui::TextUnformatted((stacked ? a + "\n" + b : a + " → " + b).c_str());
}

void table(App& app, const std::string& before, const TraceSlot& a_slot, const std::string& after, const TraceSlot& b_slot)
{
    const TracedRun &a = *a_slot.run, &b = *b_slot.run;
    const std::vector<bool>& differing = differing_steps(app, a_slot, b_slot);
    const std::optional<std::uint32_t> first = wl::trace::first_differing_step(differing);
    constexpr ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                      ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
    const float note_h = 2 * ImGui::GetTextLineHeightWithSpacing();
    const bool stacked = ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 45;  // "24/12 → 12/12" in every column would not fit
    // Stacked, one column holds both versions' lines, one above the other.
    std::vector<std::string> names{"step", "lines " + before, "lines " + after, "threads", "warps",
                                   "partial", "shared wf", "worst", "global ld/st", "sectors"};
    if (stacked) names.erase(names.begin() + 1, names.begin() + 3), names.insert(names.begin() + 1, "lines"), names[7] = "ld/st";
    if (!ImGui::BeginTable("##compare", int(names.size()), flags, ImVec2(0, ImGui::GetContentRegionAvail().y - note_h))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const std::string& name : names) ImGui::TableSetupColumn(name.c_str());
    ImGui::TableHeadersRow();
    for (std::size_t s = 0; s < differing.size(); ++s) {
        ImGui::PushID(int(s));
        ImGui::TableNextRow();
        const bool current = s == app.sel.step;
        if (current) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, palette().step_line);
        ImGui::TableSetColumnIndex(0);
        const std::string label = std::to_string(s) + (first == s ? " *" : "");
        if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) set_step(app, long(s));
        if (current && app.follow_step.metrics) ImGui::SetScrollHereY(0.5f);
        for (const std::string& lines : stacked ? std::vector{lines_of(a, s) + "\n" + lines_of(b, s)}
                                                : std::vector{lines_of(a, s), lines_of(b, s)}) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(lines.c_str());
        }
        const auto cells_a = metric_cells(a, s), cells_b = metric_cells(b, s);
        for (int c = 0; c < kMetricColumns; ++c) both_cell(cells_a ? (*cells_a)[c] : "none", cells_b ? (*cells_b)[c] : "none", stacked);
        ImGui::PopID();
    }
    ImGui::EndTable();
    add_region(app, "compare.table", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    const std::string how = stacked ? "; two values: " + before + " above " + after : "; a → b: " + before + ", then " + after;
    wrapped_text(palette().muted, (first ? "* step " + std::to_string(*first) + ": the first step whose accesses differ (which lanes touch which words)"
                                         : std::string("the same accesses at every step")) +
                                      how);
}

// The two traces and their names: the compared version's (or lab version's), then the selected one's.
struct Sides {
    std::string before, after;
    const TraceSlot* a = nullptr;
    const TraceSlot* b = nullptr;
};

std::optional<Sides> sides(App& app)
{
    const Lab& lab = current_lab(app);
    const std::string after = current_version(app).id;
    if (app.program) {  // a program's launch beside a lab's version
        const auto other = compared_lab_version(app);
        if (!other) return std::nullopt;
        const Lab& other_lab = all_labs()[other->first];
        return Sides{other_lab.id + " " + other_lab.versions[other->second].id, after, &lab_version_trace(app, other->first, other->second),
                     &current_trace(app)};
    }
    const std::optional<std::size_t> before = compared_version(app);
    if (!before) return std::nullopt;
    return Sides{lab.versions[*before].id, after, &trace_of(app, *before), &current_trace(app)};
}

}  // namespace

void compare_panel(App& app)
{
    const std::optional<Sides> shown = sides(app);
    const std::string title = shown ? shown->before + " → " + shown->after + ", step by step (D: back)" : std::string("Versions side by side (D: back)");
    if (begin_panel(app, Panel::Compare, title.c_str(), ImGuiWindowFlags_NoScrollbar)) {
        if (!shown) {
            wrapped_text(palette().muted, app.program ? std::string("a program's launch is compared with a lab's version: --lab LAB --compare VERSION")
                                                      : std::string(current_version(app).id) + " is the first version: there is none before it to compare with.");
        } else if (shown->a->run && shown->b->run) {
            table(app, shown->before, *shown->a, shown->after, *shown->b);
        } else {
            wrapped_text(palette().muted, shown->a->pending || shown->b->pending ? std::string("tracing...")
                                                                                 : (shown->a->run ? shown->after : shown->before) + ": no trace");
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
