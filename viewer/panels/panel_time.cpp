// Time: every version's measured time as a bar, the selected version and the
// one it is compared with highlighted, the step and cumulative speedups, and
// the vendor library (CUB, cuBLAS) as a line. Says where the numbers come
// from; with a GPU present, measures them now.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panel_time_published.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

// Bars from the left edge (label_w) to x_of(ms): linear from 0, or
// logarithmic from a decade under the fastest time, so that a ladder from
// 273 ms down to 2 ms shows every rung.
struct Chart {
    ImVec2 min, max;
    float label_w = 0, row_h = 0;
    ImFont* font = nullptr;
    float text_size = 0;
    double min_ms = 0, max_ms = 0;
    bool log = false;
    float x_of(double ms) const
    {
        const float w = max.x - min.x - label_w;
        if (!log) return min.x + label_w + float(ms / max_ms) * w;
        const double floor_ms = min_ms / 2;  // the fastest bar keeps some length
        const double t = std::log(std::max(ms, floor_ms) / floor_ms) / std::log(max_ms / floor_ms);
        return min.x + label_w + float(t) * w;
    }
};

// The ratio from the slowest to the fastest time of the table.
double time_span(const BenchTable& t)
{
    double lo = 0, hi = 0;
    for (const BenchRow& r : t.rows)
        if (r.median_ms > 0) lo = lo ? std::min(lo, r.median_ms) : r.median_ms, hi = std::max(hi, r.median_ms);
    return lo > 0 ? hi / lo : 1;
}

bool log_scale(const App& app, const BenchTable& t) { return app.time_log_scale.value_or(time_span(t) > 10); }

void scale_switch(App& app, const BenchTable& t)
{
    bool log = log_scale(app, t);
    ImGui::SameLine();
    wrap_unless_fits(ImGui::GetFrameHeight() + ImGui::CalcTextSize("log scale").x + 8);
    if (ImGui::Checkbox("log scale", &log)) app.time_log_scale = log;
}

void table_picker(App& app, int shown)
{
    const std::vector<int> mine = tables_of_lab(app.timing, current_lab(app).id);
    const TimingTable& t = app.timing.tables[shown];
    // As wide as its longest choice ("float, n = 2^28, L2 warm"), with its arrow; at most the panel's width.
    float widest = ImGui::CalcTextSize(size_label_of(t.table).c_str()).x;
    for (int i : mine) widest = std::max(widest, ImGui::CalcTextSize(size_label_of(app.timing.tables[i].table).c_str()).x);
    const float arrow = ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().FramePadding.x;
    ImGui::SetNextItemWidth(std::min(widest + arrow, ImGui::GetContentRegionAvail().x));
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
    wrapped_text(palette().muted, label);
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

ImU32 bar_colour(App& app, const char* id)
{
    const Lab& lab = current_lab(app);
    if (std::string(id) == current_version(app).id) return palette().bar_selected;
    const auto prev = compared_version(app);
    if (prev && std::string(id) == lab.versions[*prev].id) return palette().bar_previous;
    return palette().bar;
}

// The bar's label inside its end where it fits, else just after it; the
// rate is left out where neither has room for both.
void bar_label(const Chart& c, const BenchTable& t, const BenchRow& r, const std::string& setting, float x0, float x1, float y)
{
    const std::string ms = (setting.empty() ? "" : setting + "  ") + ms_text(r.median_ms);
    for (const std::string& label : {ms + printf_string("  %.0f %s", r.rate, t.rate_unit.c_str()), ms}) {
        const float tw = c.font->CalcTextSizeA(c.text_size, 1e9f, 0, label.c_str()).x;
        const float ty = y + (c.row_h - c.text_size) * 0.5f;
        if (x1 - x0 > tw + 12) {
            ImGui::GetWindowDrawList()->AddText(c.font, c.text_size, ImVec2(x1 - tw - 6, ty), palette().panel, label.c_str());
            return;
        }
        if (x1 + 6 + tw <= c.max.x) {
            ImGui::GetWindowDrawList()->AddText(c.font, c.text_size, ImVec2(x1 + 6, ty), palette().text, label.c_str());
            return;
        }
    }
}

void bar_row(App& app, const Chart& c, const BenchTable& t, const char* id, const BenchRow& r, float y)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddText(c.font, c.text_size, ImVec2(c.min.x, y + (c.row_h - c.text_size) * 0.5f), palette().text, id);
    const float x0 = c.min.x + c.label_w, x1 = c.x_of(r.median_ms);
    const float pad = c.row_h * 0.12f;
    dl->AddRectFilled(ImVec2(x0, y + pad), ImVec2(x1, y + c.row_h - pad), bar_colour(app, id));
    bar_label(c, t, r, row_setting(r, id), x0, x1, y);
}

// A dashed line at the reference's time across the rows.
void reference_line(const Chart& c, const BenchRow& ref)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float x = c.x_of(ref.median_ms);
    for (float y = c.min.y; y < c.max.y; y += 8) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 5, c.max.y)), palette().reference_line, 2.5f);
}

// The reference's name and time under the line, wrapped where the chart is
// narrower than it; `top` 0: only measures it. Returns its height.
float reference_label(const Chart& c, const BenchRow& ref, float top)
{
    const std::string label = ref.version + " " + ms_text(ref.median_ms);
    const float x = c.x_of(ref.median_ms);
    const ImVec2 ts = ImGui::CalcTextSize(label.c_str(), nullptr, false, c.max.x - c.min.x);
    const float left = std::max(c.min.x, std::min(x + 4, c.max.x - ts.x));
    if (top > 0)
        ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(left, top), palette().reference_line,
                                            label.c_str(), nullptr, c.max.x - left);
    return ImGui::CalcTextSize(label.c_str(), nullptr, false, c.max.x - left).y;
}

// A row's least height: the bar's label with some room above and below.
float least_row_height() { return std::floor(ImGui::GetFontSize() * 1.25f); }

// One bar a version, a row each at the body text's size: where they do not
// all fit, the chart scrolls to the selected version (until the user scrolls
// it), and the reference's label stays under it, in view. The chart takes what
// the panel has left under the lines above it (they wrap on a narrow panel),
// less that label: at least the selected version's row, never more, so that
// the label is not pushed out of the panel.
void chart(App& app, const BenchTable& t)
{
    const Lab& lab = current_lab(app);
    const BenchRow* ref = reference_row(t);
    Chart c;
    c.min = ImGui::GetCursorScreenPos();
    c.max.x = c.min.x + ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;  // as wide as beside a scroll bar
    for (const BenchRow& r : t.rows)
        if (r.median_ms > 0) c.min_ms = c.min_ms ? std::min(c.min_ms, r.median_ms) : r.median_ms, c.max_ms = std::max(c.max_ms, r.median_ms);
    c.max_ms *= 1.02;
    c.log = log_scale(app, t) && c.min_ms > 0;
    for (const VersionMeta& v : lab.versions) c.label_w = std::max(c.label_w, ImGui::CalcTextSize((std::string(v.id) + "  ").c_str()).x);
    const float label_h = ref ? reference_label(c, *ref, 0) + ImGui::GetStyle().ItemSpacing.y + 2 : 0.0f;
    ImGui::BeginChild("time_chart", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y - label_h, least_row_height())), false);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    c.font = ImGui::GetFont();
    c.text_size = ImGui::GetFontSize();
    c.row_h = std::max(least_row_height(), std::min(c.text_size * 1.9f, avail.y / float(std::max<std::size_t>(1, lab.versions.size()))));
    c.min = ImGui::GetCursorScreenPos();
    c.max = ImVec2(c.min.x + avail.x, c.min.y + c.row_h * float(lab.versions.size()));
    float y = c.min.y, selected_y = c.min.y;
    for (const VersionMeta& v : lab.versions) {
        if (const BenchRow* r = find_row(t, v.id))
            bar_row(app, c, t, v.id, *r, y);
        else
            ImGui::GetWindowDrawList()->AddText(c.font, c.text_size, ImVec2(c.min.x, y), palette().muted,
                                                (std::string(v.id) + "  not in this recording").c_str());
        if (std::string(v.id) == current_version(app).id) selected_y = y;
        y += c.row_h;
    }
    if (ref) reference_line(c, *ref);
    add_region(app, "time.chart", c.min, c.max);
    add_region(app, "time.selected", ImVec2(c.min.x, selected_y), ImVec2(c.max.x, selected_y + c.row_h));
    add_view_region(app, "time.view");
    if (keep_following(app.follow_step.time)) {  // the selected row in the middle, where scrolling allows
        const float row_top = selected_y - ImGui::GetWindowPos().y + ImGui::GetScrollY();
        ImGui::SetScrollY(std::max(0.0f, row_top - (ImGui::GetWindowHeight() - c.row_h) * 0.5f));
    }
    ImGui::SetCursorScreenPos(c.min);
    ImGui::Dummy(ImVec2(avail.x, c.max.y - c.min.y));
    ImGui::EndChild();
    if (ref) {
        const float top = ImGui::GetItemRectMax().y + 2;
        add_region(app, "time.reference", ImVec2(c.min.x, top), ImVec2(c.max.x, top + reference_label(c, *ref, top)));
        ImGui::Dummy(ImVec2(avail.x, label_h - ImGui::GetStyle().ItemSpacing.y));
    }
}

// "v3: 1.30x faster than v2" in large type, then the cumulative and reference ratios.
void speedup_sentence(App& app, const BenchTable& t)
{
    const Lab& lab = current_lab(app);
    const char* id = current_version(app).id;
    const BenchRow* r = find_row(t, id);
    const auto prev = compared_version(app);
    if (!r) {
        wrapped_text(palette().muted, std::string(id) + " is not in this recording");
        return;
    }
    const double step = prev ? speedup_vs_previous(t, *r, id, lab.versions[*prev].id) : 0.0;
    if (prev && step > 0 && std::fabs(step - 1) < 0.01) {
        // Within 1 %: timings repeat to about that, so call it a tie rather than "1.00x slower".
        ImGui::TextWrapped("%s: as fast as %s (%.3fx)", r->version.c_str(), lab.versions[*prev].id, step);
    } else if (prev && step > 0) {
        const bool faster = step >= 1;
        ImGui::TextWrapped("%s: %.2fx %s than %s", r->version.c_str(), faster ? step : 1 / step,
                    faster ? "faster" : "slower", lab.versions[*prev].id);
    } else if (prev) {
        ImGui::TextWrapped("%s: %s, %s not timed at this size", r->version.c_str(), ms_text(r->median_ms).c_str(),
                           lab.versions[*prev].id);
    } else {
        ImGui::TextWrapped("%s: the starting point, %s", r->version.c_str(), ms_text(r->median_ms).c_str());
    }
    std::string more;
    if (prev && r->cumulative > 0) more = printf_string("%.2fx since %s", r->cumulative, lab.versions.front().id);
    const BenchRow* ref = r->compared_with.empty() ? reference_row(t) : find_row(t, r->compared_with);
    if (ref && r->vs_reference > 0 && !app.presenter)
        more += printf_string("%s%.2fx the speed of %s", more.empty() ? "" : " · ", r->vs_reference, ref->version.c_str());
    if (more.empty()) return;
    if (app.presenter) {  // one line where it fits: the chart's line shows the reference
        wrapped_text_after(palette().muted, "· " + more);
    } else {
        wrapped_text(palette().muted, more);
    }
}

}  // namespace

void time_panel(App& app)
{
    if (begin_panel(app, Panel::Time, "Time per version")) {
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
                wrapped_text(palette().muted, size_label_of(t) + " · " + source_label(app.timing.tables[shown]));
            }
            if (has_published(app)) {
                ImGui::Checkbox("then and now", &app.timing.then_and_now);
                ImGui::SameLine();
            }
            speedup_sentence(app, t);
            if (app.timing.then_and_now && has_published(app)) {
                then_and_now(app);
            } else {
                scale_switch(app, t);
                chart(app, t);
            }
        }
        if (!app.timing.measure_error.empty()) wrapped_text(palette().partial_outline, app.timing.measure_error);
    }
    end_panel();
}

}  // namespace warplab::viewer
