// Time: every version's measured time as a bar, the selected version and the
// one it is compared with highlighted, the step and cumulative speedups, and
// the vendor library (CUB, cuBLAS) as a line. Says where the numbers come
// from; with a GPU present, measures them now.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "viewer/draw_util.h"
#include "viewer/format.h"
#include "viewer/panel_time_published.h"
#include "viewer/panels.h"

namespace warplab::viewer {

namespace {

struct Chart {
    ImVec2 min, max;
    float label_w = 0, row_h = 0;
    ImFont* font = nullptr;
    float text_size = 0;  // shrinks with the rows when many versions share little height
    double max_ms = 0;
    float x_of(double ms) const { return min.x + label_w + float(ms / max_ms) * (max.x - min.x - label_w); }
};

void table_picker(App& app, int shown)
{
    const std::vector<int> mine = tables_of_lab(app.timing, current_lab(app).id);
    const TimingTable& t = app.timing.tables[shown];
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    if (ImGui::BeginCombo("##table", size_label_of(t.table).c_str())) {
        for (int i : mine) {
            const TimingTable& o = app.timing.tables[i];
            const std::string label = size_label_of(o.table) + (o.measured_now ? "  (measured now)" : "") + "##" + std::to_string(i);
            if (ImGui::Selectable(label.c_str(), i == shown)) app.timing.selected = i;
        }
        ImGui::EndCombo();
    }
    const std::string label = source_label(t);
    const float button = app.gpu.available ? ImGui::CalcTextSize("Measure now").x + 30 : 0.0f;
    if (ImGui::CalcTextSize(label.c_str()).x + button < ImGui::GetContentRegionAvail().x - ImGui::GetItemRectSize().x - 20) ImGui::SameLine();
    ImGui::TextDisabled("%s", label.c_str());
}

void measure_button(App& app)
{
    if (!app.gpu.available) return;
    ImGui::SameLine();
    if (measuring(app)) {
        ImGui::TextDisabled("measuring on the GPU...");
        return;
    }
    if (ImGui::Button("Measure now")) start_measuring(app);
}

ImU32 bar_colour(App& app, const BenchRow& r)
{
    const Lab& lab = current_lab(app);
    if (r.version == current_version(app).id) return palette().bar_selected;
    const auto prev = compared_version(app);
    if (prev && r.version == lab.versions[*prev].id) return palette().bar_previous;
    return palette().bar;
}

void bar_row(App& app, const Chart& c, const BenchTable& t, const BenchRow& r, float y)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Palette& pal = palette();
    dl->AddText(c.font, c.text_size, ImVec2(c.min.x, y + (c.row_h - c.text_size) * 0.5f), pal.text, r.version.c_str());
    const float x1 = c.x_of(r.median_ms);
    const float pad = c.row_h * 0.12f;
    dl->AddRectFilled(ImVec2(c.x_of(0), y + pad), ImVec2(x1, y + c.row_h - pad), bar_colour(app, r));
    const std::string label = ms_text(r.median_ms) + printf_string("  %.0f %s", r.rate, t.rate_unit.c_str());
    const float tw = c.font->CalcTextSizeA(c.text_size, 1e9f, 0, label.c_str()).x;
    const bool inside = x1 - c.x_of(0) > tw + 12;
    const float tx = inside ? x1 - tw - 6 : std::min(x1 + 6, c.max.x - tw);
    dl->AddText(c.font, c.text_size, ImVec2(tx, y + (c.row_h - c.text_size) * 0.5f), inside ? pal.panel : pal.text, label.c_str());
}

void reference_line(const Chart& c, const BenchRow& ref)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float x = c.x_of(ref.median_ms);
    for (float y = c.min.y; y < c.max.y; y += 8) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 5, c.max.y)), palette().reference_line, 2.5f);
    const std::string label = ref.version + " " + ms_text(ref.median_ms);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(std::min(x + 4, c.max.x - tw), c.max.y + 2), palette().reference_line, label.c_str());
}

void chart(App& app, const BenchTable& t)
{
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    Chart c;
    c.min = ImGui::GetCursorScreenPos();
    c.max = ImVec2(c.min.x + avail.x, c.min.y + avail.y - ImGui::GetTextLineHeightWithSpacing() * 1.2f);
    for (const BenchRow& r : t.rows) c.max_ms = std::max(c.max_ms, r.median_ms);
    c.max_ms *= 1.02;
    const Lab& lab = current_lab(app);
    c.row_h = std::min(ImGui::GetFontSize() * 1.9f, (c.max.y - c.min.y) / float(std::max<std::size_t>(1, lab.versions.size())));
    c.font = ImGui::GetFont();
    c.text_size = std::min(ImGui::GetFontSize(), std::floor(c.row_h * 0.8f));
    c.label_w = c.font->CalcTextSizeA(c.text_size, 1e9f, 0, "v5-racy ").x;
    float y = c.min.y;
    for (const VersionMeta& v : lab.versions) {
        if (const BenchRow* r = find_row(t, v.id))
            bar_row(app, c, t, *r, y);
        else
            ImGui::GetWindowDrawList()->AddText(c.font, c.text_size, ImVec2(c.min.x, y), palette().muted,
                                                (std::string(v.id) + "  not in this recording").c_str());
        y += c.row_h;
    }
    c.max.y = y;
    if (const BenchRow* ref = reference_row(t)) reference_line(c, *ref);
    add_region(app, "time.chart", c.min, c.max);
    ImGui::Dummy(ImVec2(avail.x, c.max.y - c.min.y + ImGui::GetTextLineHeightWithSpacing()));
}

// "v3: 1.30x faster than v2" in large type, then the cumulative and reference ratios.
void speedup_sentence(App& app, const BenchTable& t)
{
    const Lab& lab = current_lab(app);
    const BenchRow* r = find_row(t, current_version(app).id);
    const auto prev = compared_version(app);
    if (!r) {
        ImGui::TextDisabled("%s is not in this recording", current_version(app).id);
        return;
    }
    if (prev && r->step_speedup > 0 && std::fabs(r->step_speedup - 1) < 0.01) {
        // Within 1 %: timings repeat to about that, so call it a tie rather than "1.00x slower".
        ImGui::Text("%s: as fast as %s (%.3fx)", r->version.c_str(), lab.versions[*prev].id, r->step_speedup);
    } else if (prev && r->step_speedup > 0) {
        const bool faster = r->step_speedup >= 1;
        ImGui::Text("%s: %.2fx %s than %s", r->version.c_str(), faster ? r->step_speedup : 1 / r->step_speedup,
                    faster ? "faster" : "slower", lab.versions[*prev].id);
    } else {
        ImGui::Text("%s: the starting point, %s", r->version.c_str(), ms_text(r->median_ms).c_str());
    }
    std::string more;
    if (prev && r->cumulative > 0) more = printf_string("%.2fx since %s", r->cumulative, lab.versions.front().id);
    const BenchRow* ref = r->compared_with.empty() ? reference_row(t) : find_row(t, r->compared_with);
    if (ref && r->vs_reference > 0 && !app.presenter)
        more += printf_string("%s%.2fx the speed of %s", more.empty() ? "" : " · ", r->vs_reference, ref->version.c_str());
    if (more.empty()) return;
    if (app.presenter) {  // one line: the chart's line shows the reference
        ImGui::SameLine();
        ImGui::TextDisabled("· %s", more.c_str());
    } else {
        wrapped_text(palette().muted, more);
    }
}

}  // namespace

void time_panel(App& app)
{
    if (begin_panel(app, Panel::Time, "Time per version", ImGuiWindowFlags_NoScrollbar)) {
        const int shown = default_table(app.timing, current_lab(app).id, element_type(app));
        if (shown < 0) {
            ImGui::TextDisabled("No recorded times for this lab in results/.");
            measure_button(app);
        } else {
            const BenchTable& t = app.timing.tables[shown].table;
            if (!app.presenter) {
                table_picker(app, shown);
                measure_button(app);
            } else {
                ImGui::TextDisabled("%s · %s", size_label_of(t).c_str(), source_label(app.timing.tables[shown]).c_str());
            }
            if (has_published(app)) {
                ImGui::Checkbox("then and now", &app.timing.then_and_now);
                ImGui::SameLine();
            }
            speedup_sentence(app, t);
            if (app.timing.then_and_now && has_published(app))
                then_and_now(app);
            else
                chart(app, t);
        }
        if (!app.timing.measure_error.empty()) wrapped_text(palette().partial_outline, app.timing.measure_error);
    }
    end_panel();
}

}  // namespace warplab::viewer
