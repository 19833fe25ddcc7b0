// Then and now: for each rung of a published ladder (one version to the next) (v1 -> v2, ...), the
// speed-up its authors' GPU showed beside the one recorded here, so that the
// lessons that aged (a speed-up near 1x today) and the ones that grew stand out.
#include "viewer/panels/panel_time_published.h"

#include <imgui.h>

#include <algorithm>

#include "labs/common/published.h"
#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

std::vector<const PublishedTable*> published_of(const App& app)
{
    std::vector<const PublishedTable*> mine;
    for (const PublishedTable& t : app.timing.published.tables)
        if (t.lab == current_lab(app).id) mine.push_back(&t);
    return mine;
}

std::string gpu_name(const PublishedTable& t) { return t.gpu.empty() ? "GPU not named" : t.gpu; }

void published_picker(App& app, const std::vector<const PublishedTable*>& mine)
{
    int shown = shown_published(app);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::BeginCombo("##published", gpu_name(*mine[shown]).c_str())) {
        for (int i = 0; i < int(mine.size()); ++i)
            if (ImGui::Selectable((gpu_name(*mine[i]) + "  " + mine[i]->source + "##" + std::to_string(i)).c_str(), i == shown))
                app.timing.published_shown = shown = i;
        ImGui::EndCombo();
    }
}

struct SpeedupBars {
    std::string label;  // "v1 -> v2"
    double then = 0, now = 0;
    bool current = false;
};

std::vector<SpeedupBars> speedups_of(const App& app, const PublishedTable& p, const BenchTable& now)
{
    std::vector<SpeedupBars> speedups;
    for (std::size_t i = 1; i < p.rows.size(); ++i) {
        const std::string from = p.rows[i - 1].version, to = p.rows[i].version;
        speedups.push_back({(from.empty() ? "?" : from) + " -> " + (to.empty() ? "?" : to), published_speedup(p, i).value,
                         recorded_speedup(p, i, now), to == current_version(app).id});
    }
    return speedups;
}

// One bar from 0; its speed-up written beside it.
void bar(ImDrawList* dl, float x0, float x_per, float y, float h, double speedup, ImU32 colour)
{
    ImFont* font = ImGui::GetFont();
    const float size = std::min(ImGui::GetFontSize(), h * 1.1f);
    if (speedup <= 0) {
        dl->AddText(font, size, ImVec2(x0 + 4, y), palette().muted, "not recorded");
        return;
    }
    const float x1 = x0 + float(speedup) * x_per;
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + h), colour);
    dl->AddText(font, size, ImVec2(x1 + 4, y + (h - size) * 0.5f), palette().text, printf_string("%.2fx", speedup).c_str());
}

void legend(const PublishedTable& p, const BenchTable& now)
{
    const float s = ImGui::GetFontSize() * 0.8f;
    const auto swatch = [&](ImU32 colour, const std::string& text) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + 2), ImVec2(at.x + s, at.y + 2 + s), colour);
        ImGui::Dummy(ImVec2(s, s));
        ImGui::SameLine();
        ImGui::TextUnformatted(text.c_str());
    };
    swatch(palette().bar_previous, "then: " + gpu_name(p) + ", " + p.n_printed);
    swatch(palette().bar, "now: " + now.provenance.gpu + ", " + size_label_of(now));
}

void speedup_chart(App& app, const PublishedTable& p, const BenchTable& now)
{
    const std::vector<SpeedupBars> speedups = speedups_of(app, p, now);
    double most = 1;
    for (const SpeedupBars& s : speedups) most = std::max({most, s.then, s.now});
    const ImVec2 avail = ImGui::GetContentRegionAvail(), min = ImGui::GetCursorScreenPos();
    const float label_w = ImGui::CalcTextSize("v5-racy -> v5-racy ").x;
    const float text_w = ImGui::CalcTextSize("00.00x").x;
    const float row_h = std::clamp(avail.y / float(std::max<std::size_t>(1, speedups.size())), ImGui::GetFontSize() * 1.4f,
                                   ImGui::GetFontSize() * 2.6f);
    const float x0 = min.x + label_w, x_per = std::max(1.0f, (avail.x - label_w - text_w) / float(most));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float y = min.y;
    for (const SpeedupBars& s : speedups) {
        dl->AddText(ImVec2(min.x, y + row_h * 0.25f), s.current ? palette().bar_selected : palette().text, s.label.c_str());
        bar(dl, x0, x_per, y + row_h * 0.05f, row_h * 0.42f, s.then, palette().bar_previous);
        bar(dl, x0, x_per, y + row_h * 0.5f, row_h * 0.42f, s.now, palette().bar);
        y += row_h;
    }
    // The 1x line: a speed-up left of it made its version slower.
    dl->AddLine(ImVec2(x0 + x_per, min.y), ImVec2(x0 + x_per, y), palette().reference_line, 1.5f);
    add_region(app, "time.then_and_now", min, ImVec2(min.x + avail.x, y));
    ImGui::Dummy(ImVec2(avail.x, y - min.y));
}

}  // namespace

bool has_published(const App& app) { return !published_of(app).empty(); }

int shown_published(const App& app)
{
    const std::vector<const PublishedTable*> mine = published_of(app);
    if (mine.empty()) return -1;
    if (app.timing.published_shown >= 0) return std::min(app.timing.published_shown, int(mine.size()) - 1);
    const auto first = [&](auto&& pred) { return int(std::find_if(mine.begin(), mine.end(), pred) - mine.begin()); };
    const int followed = first([&](const PublishedTable* t) { return t->source == current_lab(app).published_source; });
    if (followed < int(mine.size())) return followed;
    const int named = first([](const PublishedTable* t) { return !t->gpu.empty(); });
    return named < int(mine.size()) ? named : 0;
}

void then_and_now(App& app)
{
    const std::vector<const PublishedTable*> mine = published_of(app);
    if (mine.empty()) return;
    published_picker(app, mine);
    const PublishedTable& p = *mine[shown_published(app)];
    // The recording at the published n where there is one (as `bench --recorded --published`).
    std::vector<const BenchTable*> recorded;
    for (const TimingTable& t : app.timing.tables)
        if (!t.measured_now) recorded.push_back(&t.table);
    const BenchTable* now = table_beside(p, recorded);
    if (!now) {
        ImGui::TextDisabled("no recording of type %s to set beside it", p.type.c_str());
        return;
    }
    ImGui::SameLine();
    help_marker((p.citation + "; " + p.where + ". " + p.measured + ".").c_str());
    legend(p, *now);
    speedup_chart(app, p, *now);
}

}  // namespace warplab::viewer
