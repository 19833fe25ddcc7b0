#include "viewer/panels/barrier_switch.h"

#include <string>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "warplab/trace/compare.h"

namespace warplab::viewer {

bool calls_barrier(std::string_view line)
{
    const std::string_view code = line.substr(0, line.find("//"));
    for (std::string_view call : {"__syncthreads(", "__syncwarp(", ".sync("})
        if (code.find(call) != std::string_view::npos) return true;
    return false;
}

float barrier_switch_width() { return ImGui::CalcTextSize("barrier").x + ImGui::GetFontSize() * 0.6f + 2; }

void barrier_switch(App& app, std::uint32_t line, ImVec2 row_min, ImVec2 row_max)
{
    const bool off = app.sel.without_barrier == line;
    const char* label = off ? "off" : "barrier";
    const ImVec2 pad(ImGui::GetFontSize() * 0.3f, 0);
    const ImVec2 size(barrier_switch_width() - 2, row_max.y - row_min.y);
    const ImVec2 at(row_max.x - size.x - 2, row_min.y);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (off) {  // the code struck through: this line's barriers do not run
        const float mid = (row_min.y + row_max.y) * 0.5f;
        dl->AddLine(ImVec2(row_min.x, mid), ImVec2(at.x - pad.x, mid), palette().fault_banner, 2.0f);
    }
    const ImVec2 cursor = ImGui::GetCursorScreenPos();
    ImGui::SetCursorScreenPos(at);
    ImGui::PushID(int(line));
    if (ImGui::InvisibleButton("##barrier", size)) toggle_barrier(app, line);
    const bool hovered = ImGui::IsItemHovered();
    ImGui::PopID();
    ImGui::SetCursorScreenPos(cursor);
    const ImVec2 end(at.x + size.x, at.y + size.y);
    dl->AddRectFilled(at, end, off ? palette().fault_banner : hovered ? palette().changed_line : palette().panel, size.y * 0.3f);
    dl->AddRect(at, end, off ? palette().fault_text : palette().muted, size.y * 0.3f, 0, 1.5f);
    const ImVec2 text = ImGui::CalcTextSize(label);
    dl->AddText(ImVec2(at.x + (size.x - text.x) * 0.5f, at.y + (size.y - text.y) * 0.5f), off ? palette().fault_text : palette().muted, label);
    add_region(app, off ? "source.barrier_off" : "source.barrier_switch", at, end);
    if (hovered)
        ImGui::SetTooltip(off ? "Line %u's barriers are off: the trace is a rerun without them. Click to run the kernel as written."
                              : "What if this barrier were gone? Click to rerun the kernel without line %u's barriers.",
                          line);
}

namespace {

// What the rerun showed, in one sentence.
std::string verdict(App& app)
{
    const TraceSlot& modified = current_trace(app);
    if (modified.pending) return "rerunning...";
    if (!modified.run) return modified.fault ? "without it the kernel faults: the barrier prevented what the fault names"
                                             : "it cannot run: " + modified.error;
    const RunResult& r = modified.run->result;
    std::string out = "without it on the " + r.backend + ": no race is seen, and the result is " + (r.ok ? "correct" : "WRONG");
    const TraceSlot& kept = trace_as_written(app, app.sel.version);
    if (!kept.run) return out;
    if (!wl::trace::first_differing_step(differing_steps(app, kept, modified)))
        return out + "; the same accesses, step for step: here the barrier changes nothing";
    return out + printf_string("; %zu steps where the kernel as written has %zu", modified.run->steps.size(), kept.run->steps.size());
}

}  // namespace

void without_barrier_banner(App& app)
{
    if (!app.sel.without_barrier) return;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    wrapped_text(palette().fault_banner, printf_string("Line %u's barriers off: a modified run (\"off\" again: the kernel as written)",
                                                     app.sel.without_barrier));
    wrapped_text(palette().text, verdict(app));
    add_region(app, "source.without_barrier", p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y));
}

}  // namespace warplab::viewer
