// The status line: where the trace came from (GPU or emulator) and its
// result, or what went wrong.
#include <imgui.h>

#include "labs/common/traced_run.h"
#include "labs/common/without_barrier.h"
#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "viewer/app/program_view.h"
#include "viewer/model/timing_model.h"
#include "warplab/ptx/ptx.h"

namespace warplab::viewer {

namespace {

std::string run_status(App& app)
{
    if (app.program) return program_status(app);
    const Lab& lab = current_lab(app);
    const TraceSlot& slot = current_trace(app);
    const TraceKey key = trace_key(app, app.sel.version);
    // A lab sized by shape (matmul) has no default n: only the type then.
    const std::string size = key.n ? printf_string("n = %zu ", key.n) : std::string();
    std::string what = printf_string("%s %s · %s%s, %u threads per block", lab.id.c_str(), current_version(app).id,
                                     size.c_str(), key.type.c_str(), key.block);
    if (slot.pending) return pending_text(app, *slot.pending);
    if (recording_only(app)) {  // its panels show the recording: say which, and why nothing runs here
        const std::string id = lab.id + " " + current_version(app).id;
        const TimingTable* t = shown_table(app);
        const std::string shown = t ? size_label_of(t->table) + ", as " + source_label(*t) : "nothing recorded in results/";
        return id + " · " + shown + " · runs only on a GPU; none here (" + app.gpu.reason + ")";
    }
    if (!slot.run) return what + " · " + slot.error;
    const RunResult& r = slot.run->result;
    if (!r.problem.empty()) what = lab.id + " " + current_version(app).id + " · " + r.problem;
    // Where the version's launch depends on the size (reduction v10's ring), the one that ran.
    const std::string path = r.path.empty() ? "" : printf_string(" · %s %s", current_version(app).id, r.path.c_str());
    // The lab's own words for its check where it has them ("worst error 2.63 ulp ...; v11 accepts 64"), as the CLI prints them.
    const std::string result = r.check.empty() ? printf_string("result %.9g, expected %.9g", r.value, r.expected) : r.check;
    return printf_string("trace: %s · %s%s · block 0 watched · %s: %s", r.backend.c_str(), what.c_str(), path.c_str(), result.c_str(),
                         r.ok ? "correct" : "WRONG");
}

}  // namespace

std::string status_text(App& app)
{
    const std::uint32_t line = trace_key(app, app.sel.version).without_barrier;  // a modified run says so first
    return line ? without_barrier_title(current_version(app).file, line) + " · " + run_status(app) : run_status(app);
}

// What nvcc warned about a user's file, then the warnings the emulator
// raised where CUDA defines the outcome (a plain read
// racing only with atomics; lanes of one instruction storing different values
// to one word), and the note that the records were cut: the run went on, so
// they sit after the result, not in a banner.
static std::vector<std::string> status_warnings(App& app)
{
    const TraceSlot& slot = current_trace(app);
    if (!slot.run) return {};
    std::vector<std::string> w;
    // nvcc's warnings about a user's file first: each "f.cu(12): warning ..." line.
    for (const std::string& line : wl::ptx::warning_headlines(slot.run->result.compile_warnings)) w.push_back("nvcc: " + line);
    w.insert(w.end(), slot.run->result.warnings.begin(), slot.run->result.warnings.end());
    if (slot.run->result.records_cut) w.push_back(records_cut_note(*slot.run));
    return w;
}

std::string warning_text(App& app)
{
    const std::vector<std::string> w = status_warnings(app);
    if (w.empty()) return {};
    return printf_string("warning%s (%zu): %s%s", w.size() > 1 ? "s" : "", w.size(), w.front().c_str(),
                         w.size() > 1 ? " (hover for all)" : "");
}

void warnings_line(App& app)
{
    const std::string text = warning_text(app);
    if (text.empty()) return;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    wrapped_text(palette().partial_outline, text);
    add_region(app, "status.warning", p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y));
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        for (const std::string& w : status_warnings(app)) ImGui::BulletText("%s", w.c_str());
        ImGui::EndTooltip();
    }
}

void status_panel(App& app)
{
    if (begin_panel(app, Panel::Status, "##status", ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar)) {
        fill_panel(palette().bar_background);
        const TraceSlot& slot = current_trace(app);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const std::string text = status_text(app);
        const bool fine = app.program ? !program_failed(app) : slot.run ? slot.run->result.ok : recording_only(app);  // a recording shown is no error
        wrapped_text(slot.pending ? palette().muted : fine ? palette().text : palette().partial_outline, text);
        if (!slot.run && !slot.pending && !fine) add_region(app, "status.error", p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y));
        warnings_line(app);
        if (!app.timing.load_error.empty()) {
            ImGui::SameLine(0, 30);
            wrap_unless_fits(ImGui::CalcTextSize(("results: " + app.timing.load_error).c_str()).x);
            ImGui::TextDisabled("results: %s", app.timing.load_error.c_str());
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
