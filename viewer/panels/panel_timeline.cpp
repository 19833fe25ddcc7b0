// Timeline (the transfers lab only): the recorded runs of the selected
// version as Gantt charts, one row per engine (copy in, compute, peer, copy
// out) per GPU, each copy or kernel a bar at its place in the run, labelled
// with its bytes and GB/s; where bars of different rows stand above one
// another, the engines overlapped. The numbers are results/'s (recorded with
// warplab bench transfers --record), so the panel works without a GPU.
#include <imgui.h>

#include <algorithm>
#include <vector>

#include "labs/transfers/timeline.h"
#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

// One colour per engine (Okabe & Ito, as the sectors): copy in, compute, peer, copy out.
ImU32 engine_colour(const std::string& engine)
{
    const Palette& pal = palette();
    if (engine == "copy in") return pal.sector[0];
    if (engine == "compute") return pal.sector[2];
    if (engine == "peer") return pal.sector[3];
    return pal.sector[1];
}

// The longest form of a bar's label that fits `room` pixels: "s1 64 MiB · 47.9 GB/s",
// "64 MiB · 47.9 GB/s", "47.9 GB/s", "47.9"; empty when none does (the tooltip has it all).
std::string fitting_label(const transfers::Bar& b, float room)
{
    const std::string& full = b.label;
    const std::size_t dot = full.find("· ");
    const std::string rate = dot == std::string::npos ? full : full.substr(dot + 3);
    const std::string with_stream = printf_string("s%u %s", b.stream, full.c_str());
    const std::string* const candidates[] = {&with_stream, &full, &rate};
    for (const std::string* text : candidates)
        if (ImGui::CalcTextSize(text->c_str()).x + 4 < room) return *text;
    const std::string number = rate.substr(0, rate.find(' '));
    return ImGui::CalcTextSize(number.c_str()).x + 4 < room ? number : "";
}

// Where a chart is drawn: names in the left column, time from x0 over width.
struct ChartFrame {
    ImVec2 top;
    float name_w, x0, width, row_h, bottom;
};

// The time axis under the rows and its grid lines across them: 0, ¼, ½, ¾ and
// all of the run; the end's label always, the others where they do not overlap.
void time_axis(const ChartFrame& f, double wall_ms)
{
    const Palette& pal = palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const std::string end = printf_string("%.1f ms", wall_ms);
    const float end_left = f.x0 + f.width - ImGui::CalcTextSize(end.c_str()).x;
    dl->AddText(ImVec2(end_left, f.bottom + 3), pal.muted, end.c_str());
    float free_from = f.top.x;
    for (int k = 0; k <= 4; ++k) {
        const float x = f.x0 + f.width * float(k) / 4;
        dl->AddLine(ImVec2(x, f.top.y), ImVec2(x, f.bottom + 3), pal.grid_line);
        const std::string t = printf_string("%.1f ms", wall_ms * k / 4);
        const float w = ImGui::CalcTextSize(t.c_str()).x, left = x - w / 2;
        if (k == 4 || left < free_from || left + w + 8 > end_left) continue;
        dl->AddText(ImVec2(left, f.bottom + 3), pal.muted, t.c_str());
        free_from = left + w + 8;
    }
}

// One row's bars at height y: the wait thin, the run solid, labelled where the label fits.
void row_bars(const ChartFrame& f, const transfers::TimelineRow& row, float y, double wall_ms)
{
    const Palette& pal = palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const transfers::Bar& b : row.bars) {
        const float x_wait = f.x0 + float(b.from) * f.width, x_run = f.x0 + float(b.running_from) * f.width;
        const ImVec2 a(x_run, y + 2), z(std::max(f.x0 + float(b.to) * f.width, x_run + 1), y + f.row_h - 2);
        if (x_run > x_wait)  // queued behind an earlier copy of its direction: a thin line
            dl->AddLine(ImVec2(x_wait, y + f.row_h / 2), ImVec2(x_run, y + f.row_h / 2), engine_colour(row.engine), 1.0f);
        dl->AddRectFilled(a, z, engine_colour(row.engine));
        dl->AddRect(a, z, pal.panel);
        const std::string label = fitting_label(b, z.x - a.x);
        if (!label.empty()) dl->AddText(ImVec2(a.x + 3, y + (f.row_h - ImGui::GetTextLineHeight()) / 2), pal.text, label.c_str());
        if (ImGui::IsMouseHoveringRect(ImVec2(x_wait, a.y), z))
            ImGui::SetTooltip("%s, stream %u: %s; issued at %.3f ms, ran from %.3f ms", row.name().c_str(), b.stream, b.label.c_str(),
                              b.from * wall_ms, b.running_from * wall_ms);
    }
}

// The chart of one run: row names on the left, bars over the run's wall-clock time.
void chart(App& app, const transfers::TimelineChart& c, float row_h)
{
    const Palette& pal = palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ChartFrame f;
    f.top = ImGui::GetCursorScreenPos();
    f.name_w = ImGui::CalcTextSize("GPU 0 copy out  ").x;
    f.width = std::max(1.0f, ImGui::GetContentRegionAvail().x - f.name_w);
    f.x0 = f.top.x + f.name_w;
    f.row_h = row_h;
    f.bottom = f.top.y + float(c.rows.size()) * row_h;
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        const float y = f.top.y + float(i) * row_h;
        dl->AddText(ImVec2(f.top.x, y + (row_h - ImGui::GetTextLineHeight()) / 2), pal.text, c.rows[i].name().c_str());
        dl->AddRectFilled(ImVec2(f.x0, y + 1), ImVec2(f.x0 + f.width, y + row_h - 1), pal.bar_background);
    }
    time_axis(f, c.wall_ms);
    for (std::size_t i = 0; i < c.rows.size(); ++i) row_bars(f, c.rows[i], f.top.y + float(i) * row_h, c.wall_ms);
    add_region(app, "timeline." + c.version, ImVec2(f.x0, f.top.y), ImVec2(f.x0 + f.width, f.bottom));
    ImGui::Dummy(ImVec2(f.name_w + f.width, f.bottom - f.top.y + ImGui::GetTextLineHeightWithSpacing()));
}

// Rows of the table for the selected version ("v3" has one per stream count).
std::vector<const BenchRow*> version_rows(const BenchTable& t, const std::string& id)
{
    std::vector<const BenchRow*> out;
    for (const BenchRow& r : t.rows)
        if (row_version(r.version) == id) out.push_back(&r);
    return out;
}

void legend()
{
    for (const char* engine : transfers::kEngines) legend_swatch(engine_colour(engine), engine);
    end_line();
}

}  // namespace

const TimingTable* shown_table(const App& app)
{
    const int shown = default_table(app.timing, current_lab(app).id, element_type(app));
    return shown >= 0 ? &app.timing.tables[shown] : nullptr;
}

bool recording_only(const App& app) { return current_lab(app).host_programs && !app.gpu.available; }

void timeline_panel(App& app)
{
    if (begin_panel(app, Panel::Timeline, "Timeline: copy engines, SMs and peer links per GPU")) {
        const TimingTable* shown = shown_table(app);
        const BenchTable* t = shown ? &shown->table : nullptr;
        const std::string id = current_version(app).id;
        if (!t) {
            ImGui::TextDisabled("No transfers run recorded in results/ yet (on a GPU: warplab bench transfers --record ...)");
        } else {
            ImGui::TextDisabled("%s, %s", t->provenance.gpu.c_str(), size_label_of(*t).c_str());
            help_marker("One timed run of each row, from CUDA events against a base event on each GPU. A bar is one copy or "
                        "kernel, labelled sN (its stream), its bytes and GB/s. Bars above one another ran at once: the "
                        "copy-in engine, the SMs and the copy-out engine overlap. A copy's thin line before its bar: its "
                        "stream had reached it, but the engine was still running an earlier copy of its direction. "
                        "The axis is the run's wall-clock time; "
                        "the lower bound is the time the busiest link needs at the rates measured in the same run.");
            legend();
            const std::vector<const BenchRow*> rows = version_rows(*t, id);
            if (rows.empty()) ImGui::TextWrapped("%s was not timed in this recording: %s", id.c_str(), t->note.c_str());
            std::size_t lines = 0;
            for (const BenchRow* r : rows)
                if (const RunTimeline* run = transfers::find_timeline(*t, r->version)) lines += transfers::timeline_chart(*run).rows.size() + 2;
            const float row_h = std::clamp(ImGui::GetContentRegionAvail().y / float(std::max<std::size_t>(lines, 1)) - 2,
                                           ImGui::GetTextLineHeight() + 2, ImGui::GetTextLineHeight() * 2.2f);
            for (const BenchRow* r : rows) {
                const RunTimeline* run = transfers::find_timeline(*t, r->version);
                ImGui::TextWrapped("%s: %.3f ms median; %s%s", r->version.c_str(), r->median_ms, bound_sentence(*r).c_str(),
                                   r->ok ? "" : ", wrong result");
                if (run) chart(app, transfers::timeline_chart(*run), row_h);
            }
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
