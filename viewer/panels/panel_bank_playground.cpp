// The bank playground page: one warp's load x = shared[offset + stride * lane]
// set by sliders or a preset, analysed by the core like any traced load
// (playground_view), and drawn with the banks panel's own picture.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "viewer/model/step_model.h"

namespace warplab::viewer {

namespace {

using wl::trace::BankPattern;

constexpr std::array<unsigned, 5> kSizes = {1, 2, 4, 8, 16};
constexpr int kSliderMax = 64;  // stride and offset in elements; enough for a padded 32x33 tile

bool same_pattern(const BankPattern& a, const BankPattern& b)
{
    return a.size == b.size && a.stride == b.stride && a.offset == b.offset && a.mask == b.mask;
}

const wl::trace::BankPreset* matching_preset(const BankPattern& p)
{
    for (const auto& preset : wl::trace::bank_presets())
        if (same_pattern(preset.pattern, p)) return &preset;
    return nullptr;
}

void preset_combo(BankPattern& p)
{
    const wl::trace::BankPreset* current = matching_preset(p);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 11);
    if (ImGui::BeginCombo("Preset", current ? current->name : "(your own)")) {
        for (const auto& preset : wl::trace::bank_presets()) {
            if (ImGui::Selectable(preset.name, current == &preset)) p = preset.pattern;
            help_tooltip(preset.description);
        }
        ImGui::EndCombo();
    }
}

// A slider over an unsigned field, clamped to [low, high].
// "Stride 2 elements" then the slider: the value is never under the slider's grab.
bool labelled_slider(const char* label, const std::string& shown, int& v, int low, int high)
{
    const float width = ImGui::GetFontSize() * 8;
    const std::string text = std::string(label) + " " + shown;
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    wrap_unless_fits(ImGui::CalcTextSize(text.c_str()).x + ImGui::GetStyle().ItemSpacing.x + width);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(text.c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(width);
    return ImGui::SliderInt((std::string("##") + label).c_str(), &v, low, high, "", ImGuiSliderFlags_AlwaysClamp);
}

// Shown as before + the value + after ("first 32", "2 elements").
template <class T>
void slider(const char* label, T& value, int low, int high, const char* before, const char* after)
{
    int v = int(value);
    if (labelled_slider(label, before + std::to_string(v) + after, v, low, high)) value = T(v);
}

void size_slider(BankPattern& p)
{
    int index = 2;
    for (int i = 0; i < int(kSizes.size()); ++i)
        if (kSizes[i] == p.size) index = i;
    const std::string shown = std::to_string(p.size) + (p.size == 1 ? " byte" : " bytes");
    if (labelled_slider("Element size", shown, index, 0, int(kSizes.size()) - 1)) p.size = kSizes[std::size_t(index)];
}

void controls(App& app)
{
    BankPattern& p = app.playground.pattern;
    preset_combo(p);
    size_slider(p);
    slider("Stride", p.stride, 0, kSliderMax, "", " elements");
    slider("Offset", p.offset, 0, kSliderMax, "", " elements");
    const unsigned active = unsigned(std::popcount(p.mask));
    unsigned lanes = active;
    slider("Active lanes", lanes, 1, int(wl::trace::kPlaygroundLanes), "first ", "");
    if (lanes != active) p.mask = wl::trace::first_lanes(lanes);
}

void explanation(const BankPattern& p)
{
    ImGui::TextWrapped("x = shared[%llu + %llu * lane], %u-byte elements", static_cast<unsigned long long>(p.offset),
                static_cast<unsigned long long>(p.stride), p.size);
    help_marker("Each active lane of one warp reads one element. Its bytes lie in 4-byte words; word w is in bank "
                "w mod 32. The numbers come from the same analysis as the labs' traces: the pattern is turned into "
                "the records such a load leaves, and those are counted like any traced instruction.");
    if (const wl::trace::BankPreset* preset = matching_preset(p)) wrapped_text(palette().muted, preset->description);
}

// lane / byte / bank, one column per lane; a lane's bank coloured by how many ways that bank conflicts.
void lane_table(const PlaygroundView& v)
{
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchSame;
    if (!ImGui::BeginTable("lanes", int(wl::trace::kPlaygroundLanes) + 1, flags)) return;
    ImGui::TableSetupColumn("##row", ImGuiTableColumnFlags_WidthFixed,
                            std::max(ImGui::CalcTextSize("lane").x, ImGui::CalcTextSize("bank").x));
    for (unsigned lane = 0; lane < wl::trace::kPlaygroundLanes; ++lane) ImGui::TableSetupColumn(nullptr, ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("lane");
    for (unsigned lane = 0; lane < wl::trace::kPlaygroundLanes; ++lane) {
        ImGui::TableNextColumn();
        ImGui::Text("%u", lane);
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("bank");
    help_tooltip("The bank of the lane's first word (8 and 16 bytes cover 2 and 4 banks from there), coloured by "
                 "how many distinct words that bank must deliver.");
    for (const auto& lane : v.play.lanes) {
        ImGui::TableNextColumn();
        if (!lane.active) {
            ImGui::TextDisabled("-");
            continue;
        }
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, palette().conflict[conflict_level(v.banks.ways[lane.bank()])]);
        ImGui::Text("%u", lane.bank());
    }
    ImGui::EndTable();
}

// The same load at every stride from 1 to 32 (this element size, offset and
// lanes): a cell a stride, coloured and numbered by its n-way; the current
// stride outlined; a click picks it. Strides that share a factor with 32 conflict.
void stride_sweep(App& app)
{
    BankPattern& p = app.playground.pattern;
    ImGui::TextUnformatted("Every stride at this element size:");
    help_marker("Each cell is the same warp load with another stride, numbered with its n-way (wavefronts over the "
                "ideal). With 4-byte elements stride s hits gcd(s, 32) words in one bank; odd strides never conflict.");
    const float label_w = ImGui::CalcTextSize("stride ").x;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float cell_w = std::floor((avail.x - label_w) / 32), cell_h = std::floor(ImGui::GetTextLineHeight() * 1.6f);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddText(ImVec2(at.x, at.y + (cell_h - ImGui::GetTextLineHeight()) / 2), palette().muted, "n-way");
    for (unsigned s = 1; s <= 32; ++s) {
        BankPattern q = p;
        q.stride = s;
        const double ways = playground_view(q).banks.cost.ways();
        const ImVec2 a(at.x + label_w + float(s - 1) * cell_w, at.y), z(a.x + cell_w - 1, a.y + cell_h);
        dl->AddRectFilled(a, z, palette().conflict[conflict_level(ways)]);
        if (s == p.stride) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), palette().text, 0, 0, 2.0f);
        const std::string n = printf_string("%.0f", ways), below = std::to_string(s);
        const float nw = ImGui::CalcTextSize(n.c_str()).x, bw = ImGui::CalcTextSize(below.c_str()).x;
        if (nw + 2 <= cell_w) dl->AddText(ImVec2(a.x + (cell_w - nw) / 2, a.y + (cell_h - ImGui::GetTextLineHeight()) / 2), palette().text, n.c_str());
        if (bw + 2 <= cell_w) dl->AddText(ImVec2(a.x + (cell_w - bw) / 2, z.y + 2), palette().muted, below.c_str());
        if (ImGui::IsMouseHoveringRect(a, z) && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) p.stride = s;
    }
    dl->AddText(ImVec2(at.x, at.y + cell_h + 2), palette().muted, "stride");
    add_region(app, "playground.strides", ImVec2(at.x + label_w, at.y), ImVec2(at.x + label_w + 32 * cell_w, at.y + cell_h));
    ImGui::Dummy(ImVec2(avail.x, cell_h + ImGui::GetTextLineHeight() + 4));
}

}  // namespace

void bank_playground_panel(App& app)
{
    if (begin_panel(app, Panel::BankPlayground, "Bank playground: one warp's shared load")) {
        controls(app);
        const PlaygroundView v = playground_view(app.playground.pattern);
        explanation(app.playground.pattern);
        lane_table(v);
        ImGui::Spacing();
        if (app.playground.pattern.stride >= 1 && app.playground.pattern.stride <= 32 && app.playground.pattern.size <= 8) {
            stride_sweep(app);
            ImGui::Spacing();
        }
        bank_picture(app, v.banks);
    }
    end_panel();
}

}  // namespace warplab::viewer
