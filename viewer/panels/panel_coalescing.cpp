// Coalescing (the coalescing lab only): the version's sweep as two curves
// over the setting, the read's sectors per request (traced) and the recorded
// effective bandwidth, with a slider that picks the setting and re-traces it.
// The Global memory panel beside it draws that setting's lanes -> sectors.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "labs/coalescing/sweep.h"
#include "labs/coalescing/versions.h"
#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

// The recorded coalescing table the time panel would show, if any.
const BenchTable* recorded_table(const App& app)
{
    const int shown = default_table(app.timing, "coalescing", "float");
    return shown >= 0 ? &app.timing.tables[shown].table : nullptr;
}

// Every setting of the version, each traced once (kept with the other traces).
std::vector<coalescing::SweepPoint> sweep_points(App& app, const Setting& s)
{
    std::vector<coalescing::SweepPoint> points;
    const std::string version = current_version(app).id;
    for (unsigned v = s.first; v <= s.last; ++v) {
        const TraceSlot& slot = trace_of(app, app.sel.version, int(v));
        if (slot.run) points.push_back(coalescing::sweep_point(version, v, *slot.run, recorded_table(app)));
    }
    return points;
}

// One curve over the settings, from 0 to y_max, with the current setting
// marked, an optional reference level (the ideal), and the axes' end values.
void curve(App& app, const char* id, const std::string& title, const std::vector<float>& ys, float y_max, const Setting& s,
           unsigned current, float height, float reference = 0)
{
    wrapped_text(palette().text, title);
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    // Room above the highest point for the top value's label, so that the curve never runs through it.
    const float plot_h = height - 2 * ImGui::GetStyle().FramePadding.y, label_h = ImGui::GetTextLineHeight() + 2;
    const float most = ys.empty() ? 0.0f : *std::max_element(ys.begin(), ys.end());
    if (plot_h > 2 * label_h) y_max = std::max(y_max, std::ceil(most * plot_h / (plot_h - label_h)));
    ImGui::PlotLines((std::string("##") + id).c_str(), ys.data(), int(ys.size()), 0, nullptr, 0.0f, y_max, ImVec2(width, height));
    // PlotLines puts point k at k / (count - 1) of the frame inside its padding.
    const ImVec2 pad = ImGui::GetStyle().FramePadding;
    const auto x_of = [&](unsigned setting) {
        return top.x + pad.x + (width - 2 * pad.x) * float(setting - s.first) / float(std::max<std::size_t>(2, ys.size()) - 1);
    };
    const auto y_of = [&](float v) { return top.y + height - pad.y - (height - 2 * pad.y) * v / y_max; };
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Palette& pal = palette();
    if (reference > 0) dl->AddLine(ImVec2(top.x, y_of(reference)), ImVec2(top.x + width, y_of(reference)), pal.reference_line, 1.0f);
    dl->AddLine(ImVec2(x_of(current), top.y), ImVec2(x_of(current), top.y + height), pal.step_marker, 2.0f);
    dl->AddText(ImVec2(top.x + pad.x + 2, top.y + pad.y), pal.muted, printf_string("%.0f", y_max).c_str());
    const std::string last = std::to_string(s.last);
    ImGui::TextDisabled("%s %u", s.name, s.first);
    ImGui::SameLine(width - ImGui::CalcTextSize(last.c_str()).x);
    ImGui::TextDisabled("%s", last.c_str());
    add_region(app, std::string("coalescing.") + id, top, ImVec2(top.x + width, top.y + height));
}

void setting_slider(App& app, const Setting& s, unsigned current)
{
    int value = int(current);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.4f);
    if (ImGui::SliderInt(s.name, &value, int(s.first), int(s.last))) {
        app.sel.setting = value;
        select_version(app, app.sel.version);  // re-traces, and focuses the new trace's worst access
    }
    wrapped_text_after(palette().muted, printf_string("in[i %s %d]", s.op, value));
}

}  // namespace

void coalescing_panel(App& app)
{
    if (begin_panel(app, Panel::Coalescing, "Coalescing: sectors per request and bandwidth by setting")) {
        const Setting* s = coalescing::setting_of(current_version(app).id);
        if (!s) {
            wrapped_text(palette().muted, "This version has no setting to sweep.");
        } else {
            const unsigned current = app.sel.setting < 0 ? s->standard : unsigned(app.sel.setting);
            setting_slider(app, *s, current);
            help_marker("Each setting traced on the emulator, block 0: the 32-byte sectors one warp's read touches. 4 is the "
                        "ideal for 32 lanes x 4 bytes; an offset off the 8-word grid adds one, a stride s touches min(32, 4s). "
                        "GB/s: the recorded effective bandwidth, n floats read + n written per run.");
            const std::vector<coalescing::SweepPoint> points = sweep_points(app, *s);
            std::vector<float> sectors, gbps;
            for (const auto& p : points) {
                sectors.push_back(float(p.sectors));
                gbps.push_back(float(p.gbps));
            }
            const auto at = std::find_if(points.begin(), points.end(), [&](const auto& p) { return p.setting == current; });
            const float height = std::max(40.0f, (ImGui::GetContentRegionAvail().y - 6 * ImGui::GetTextLineHeightWithSpacing()) / 2);
            const float most_sectors = sectors.empty() ? 4.0f : *std::max_element(sectors.begin(), sectors.end());
            curve(app, "sectors", printf_string("read sectors per request (ideal 4, the line); here %.0f", at != points.end() ? at->sectors : 0.0),
                  sectors, std::ceil(most_sectors * 1.25f), *s, current, height, 4.0f);
            const bool recorded = std::any_of(gbps.begin(), gbps.end(), [](float g) { return g > 0; });
            if (recorded) {
                const float most = *std::max_element(gbps.begin(), gbps.end());
                curve(app, "gbps", printf_string("effective bandwidth, GB/s (read + write, recorded); here %.0f", at != points.end() ? at->gbps : 0.0),
                      gbps, std::ceil(most * 1.1f), *s, current, height);
            } else {
                wrapped_text(palette().muted, "GB/s: none recorded in results/ yet (on a GPU: warplab bench coalescing --record ...)");
            }
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
