// The top bar. At the desk: the lab and the run settings. Presenting: the
// version and its idea, the step's numbers, and a big step counter.
#include <imgui.h>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "warplab/version.h"

namespace warplab::viewer {

namespace {

constexpr const char* kKeyHints = "←/→ step   ↑/↓ version   space play   W 32/64   C compare 32/64   D compare versions   F present   Esc quit";

template <class T>
bool combo(const char* label, float width, const std::vector<std::pair<T, std::string>>& choices, T& value)
{
    ImGui::SameLine();
    wrap_unless_fits(ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemSpacing.x + width);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(width);
    std::string shown;
    for (const auto& [v, text] : choices)
        if (v == value) shown = text;
    // A choice wider than the box ("Finding the bottleneck, ...") shows cut with "…", not clipped mid-letter; the list shows it whole.
    shown = elided(shown, width - ImGui::GetFrameHeight() - 2 * ImGui::GetStyle().FramePadding.x);
    bool changed = false;
    if (ImGui::BeginCombo((std::string("##") + label).c_str(), shown.c_str())) {
        for (const auto& [v, text] : choices)
            if (ImGui::Selectable(text.c_str(), v == value)) value = v, changed = true;
        ImGui::EndCombo();
    }
    return changed;
}

void lab_combo(App& app)
{
    std::vector<std::pair<std::size_t, std::string>> labs;
    for (std::size_t i = 0; i < all_labs().size(); ++i) labs.push_back({i, all_labs()[i].title});
    std::size_t lab = app.sel.lab;
    if (combo("Lab", ImGui::GetFontSize() * 16, labs, lab)) select_lab(app, lab);
}

// The problem's size, for a lab sized by n (reduction, coalescing): typed, applied on Enter.
bool size_field(App& app, Selection& s)
{
    const Lab& lab = current_lab(app);
    if (!lab.default_n) return false;  // sized by a shape (matmul, transpose, image): --shape
    const float w = ImGui::GetFontSize() * 6.5f;
    ImGui::SameLine();
    wrap_unless_fits(ImGui::CalcTextSize("n").x + ImGui::GetStyle().ItemSpacing.x + w);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("n");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    ImU64 n = trace_key(app, app.sel.version).n;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const bool entered = ImGui::InputScalar("##n", ImGuiDataType_U64, &n, nullptr, nullptr, "%llu", ImGuiInputTextFlags_EnterReturnsTrue);
    add_region(app, "header.n", at, ImVec2(at.x + w, at.y + ImGui::GetFrameHeight()));
    help_tooltip("Elements the trace runs on (warplab trace --n); Enter applies. Some versions take another path by size "
                 "(reduction v10's ring of bulk copies): the status line says which one ran.");
    if (!entered || n == 0 || std::size_t(n) == trace_key(app, app.sel.version).n) return false;
    s.n = std::size_t(n);
    return true;
}

void settings_combos(App& app)
{
    const Lab& lab = current_lab(app);
    if (recording_only(app)) {  // nothing runs here: no settings to choose
        ImGui::SameLine();
        const char* note = "recorded runs, shown as timed on a GPU (none here)";
        wrap_unless_fits(ImGui::CalcTextSize(note).x);
        ImGui::AlignTextToFramePadding();
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImGui::TextDisabled("%s", note);
        add_region(app, "header.recording_only", at, ImVec2(at.x + ImGui::CalcTextSize(note).x, at.y + ImGui::GetTextLineHeight()));
        return;
    }
    Selection s = app.sel;
    unsigned block = s.block ? s.block : current_version(app).bench_block;  // 0 selects each version's bench block
    if (s.type.empty()) s.type = lab.types.front();
    std::vector<std::pair<unsigned, std::string>> blocks;
    for (unsigned b = 32; b <= 1024; b *= 2) blocks.push_back({b, std::to_string(b)});
    std::vector<std::pair<std::string, std::string>> types;
    for (const std::string& t : lab.types) types.push_back({t, t});
    const float w = ImGui::GetFontSize() * 5.5f;
    bool changed = size_field(app, s);
    if (lab.default_block) {
        if (combo("Threads per block", w, blocks, block)) {
            s.block = block;
            changed = true;
        }
        if (!s.block) {
            ImGui::SameLine();
            wrap_unless_fits(ImGui::CalcTextSize("(as benched)").x);
            ImGui::TextDisabled("(as benched)");
        }
    } else {
        ImGui::SameLine();
        wrap_unless_fits(ImGui::CalcTextSize("block fixed by each version").x);
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("block fixed by each version");
    }
    changed |= combo("Type", w, types, s.type);
    if (lab.host_programs) {  // host programs are timed, never emulated: no schedule, no warp width, no emulator
        if (changed) select_settings(app, s);
        return;
    }
    changed |= combo("Schedule", w * 1.6f,
                     {{wl::emu::Schedule::Independent, wl::emu::to_string(wl::emu::Schedule::Independent)},
                      {wl::emu::Schedule::Lockstep, wl::emu::to_string(wl::emu::Schedule::Lockstep)}},
                     s.schedule);
    help_marker("How the emulator orders the lanes of a warp. independent: each lane runs to its next "
                "synchronisation, in any order, as Volta and later GPUs may. lockstep: the lanes interleave at every "
                "access, as pre-Volta GPUs did. Warp-synchronous code without __syncwarp() is only correct in lockstep.");
    std::vector<std::pair<BackendChoice, std::string>> backends = {{BackendChoice::Auto, "auto"}, {BackendChoice::Cpu, "emulator"}};
    if (app.gpu.available) backends.push_back({BackendChoice::Gpu, "GPU"});
    changed |= combo("Trace on", w * 1.4f, backends, s.backend);
    changed |= combo("Warp", w * 1.7f, {{32u, "32"}, {64u, "64 wavefront"}}, s.warp_width);
    help_tooltip("Lanes a warp. 32: NVIDIA's warp. 64: AMD's wavefront, emulated (the emulator only): warpSize is 64, "
                "each row of the threads panel is 64 lanes, and divergence and bank conflicts are counted per 64-lane "
                "instruction. W switches; C shows both widths side by side.");
    if (changed) select_settings(app, s);
}

// A program's files (--run): its lab's title, as the launches panel heads it.
void program_title(App& app)
{
    ImGui::SameLine();
    const std::string text = "program " + current_lab(app).title;
    wrap_unless_fits(ImGui::CalcTextSize(text.c_str()).x);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(text.c_str());
}

// The key hints at the right end of the bar's last row, where they fit; else a "(?)" that tells them.
// Hovered, either says which warplab this is (the about box).
void key_hints()
{
    ImGui::SameLine();
    const float hints_w = ImGui::CalcTextSize(kKeyHints).x;
    const float right = ImGui::GetWindowContentRegionMax().x;
    const std::string about = "warplab " + wl::version_text() + ", MIT licence";
    if (ImGui::GetCursorPosX() + 20 + hints_w <= right) {
        ImGui::SameLine(right - hints_w);
        ImGui::TextDisabled("%s", kKeyHints);
        if (ImGui::IsItemHovered()) help_tooltip(about.c_str());
    } else {
        help_marker((std::string(kKeyHints) + "\n\n" + about).c_str());
    }
}

void desk_header(App& app)
{
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("warplab");
    ImGui::SameLine();
    if (ImGui::Button(app.playground.open ? "< Back to the lab" : "Bank playground")) app.playground.open = !app.playground.open;
    if (app.program) {  // a program's launches run as it made them: no lab, no settings
        program_title(app);
    } else {
        lab_combo(app);
        settings_combos(app);
    }
    view_switch(app);
    key_hints();
}

std::string step_summary(App& app)
{
    const TracedRun* run = current_run(app);
    if (!run || run->steps.empty()) return "";
    const auto& m = run->steps[app.sel.step];
    std::string s = printf_string("%u thread%s · %u warp%s · %u partial", m.active_threads, m.active_threads == 1 ? "" : "s",
                                  m.active_warps, m.active_warps == 1 ? "" : "s", m.partial_warps);
    if (const std::string width = wl::trace::warp_width_label(run->block.warp_size); !width.empty()) s = width + " · " + s;
    const unsigned wf = m.shared_load.wavefronts + m.shared_store.wavefronts;
    const unsigned ideal = m.shared_load.ideal + m.shared_store.ideal;
    if (wf) s += printf_string(" · shared %u/%u wf, %s", wf, ideal,
                               ways_text(std::max(m.shared_load.worst_ways, m.shared_store.worst_ways)).c_str());
    const unsigned requests = m.global_load.requests + m.global_store.requests;
    if (requests)
        s += printf_string(" · %.1f sectors/req", double(m.global_load.sectors + m.global_store.sectors) / requests);
    return s;
}

void presenter_header(App& app)
{
    const FontSet& f = fonts(app);
    const VersionMeta& v = current_version(app);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const std::string counter = step_count(app) ? printf_string("step %u", app.sel.step) : "no steps";
    const ImVec2 cs = f.big->CalcTextSizeA(px(f.big), 1e9f, 0, counter.c_str());
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowWidth() - ImGui::GetStyle().WindowPadding.x;
    dl->AddText(f.big, px(f.big), ImVec2(right - cs.x, p.y - 2), palette().active, counter.c_str());
    float title_right = right - cs.x - ImGui::GetFontSize();
    if (step_count(app)) {
        const std::string range = printf_string("of steps 0-%u", step_count(app) - 1);
        const ImVec2 rs = ImGui::CalcTextSize(range.c_str());
        dl->AddText(ImVec2(right - cs.x - rs.x - 12, p.y + cs.y - rs.y - 6), palette().muted, range.c_str());
        title_right -= rs.x + 12;
    }
    add_region(app, "header.step_counter", ImVec2(right - cs.x, p.y), ImVec2(right, p.y + cs.y));
    // The title in large type, smaller where the counter leaves less room, never below the body text.
    const std::string title = std::string(v.id) + "  " + v.name + (v.variant ? "  (variant)" : "") +
                              (app.sel.without_barrier ? "  without line " + std::to_string(app.sel.without_barrier) + "'s barriers" : "");
    const float full = f.big->CalcTextSizeA(px(f.big) * 0.72f, 1e9f, 0, title.c_str()).x;
    const float title_size = std::max(ImGui::GetFontSize(), px(f.big) * 0.72f * std::min(1.0f, (title_right - p.x) / full));
    dl->AddText(f.big, title_size, p, palette().text, title.c_str(), nullptr, title_right - p.x);
    const float title_h = f.big->CalcTextSizeA(title_size, 1e9f, title_right - p.x, title.c_str()).y;
    ImGui::Dummy(ImVec2(1, std::max(px(f.big), title_h) + 4));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(v.idea);
    ImGui::PopTextWrapPos();
    const std::string summary = step_summary(app);
    ImGui::SameLine(0, ImGui::GetFontSize() * 2);
    wrap_unless_fits(ImGui::CalcTextSize(summary.c_str()).x);
    ImGui::TextDisabled("%s", summary.c_str());
    view_switch(app);
}

}  // namespace

void header_panel(App& app)
{
    if (begin_panel(app, Panel::Header, "##header", ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar)) {
        if (!app.presenter) fill_panel(palette().bar_background);
        if (app.presenter)
            presenter_header(app);
        else
            desk_header(app);
        app.header_content_h = ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y - ImGui::GetStyle().WindowPadding.y;
    }
    end_panel();
}

}  // namespace warplab::viewer
