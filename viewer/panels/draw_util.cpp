#include "viewer/panels/draw_util.h"

#include <imgui_internal.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string_view>

#include "viewer/model/format.h"
#include "viewer/model/step_model.h"
#include "warplab/trace/json.h"

namespace warplab::viewer {

namespace {

ImVec2 lerp(ImVec2 a, ImVec2 b, float t) { return ImVec2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t); }

void arrow_head(ImDrawList* dl, ImVec2 tip, ImVec2 direction, ImU32 colour, float size)
{
    const float len = std::sqrt(direction.x * direction.x + direction.y * direction.y);
    if (len < 1e-3f) return;
    const ImVec2 d(direction.x / len, direction.y / len), n(-d.y, d.x);
    const ImVec2 base(tip.x - d.x * size, tip.y - d.y * size);
    dl->AddTriangleFilled(tip, ImVec2(base.x + n.x * size * 0.5f, base.y + n.y * size * 0.5f),
                          ImVec2(base.x - n.x * size * 0.5f, base.y - n.y * size * 0.5f), colour);
}

}  // namespace

float font_scale(float width, float height, bool presenter)
{
    (void)width;  // a narrow window wraps more; its text stays as tall
    if (presenter) return std::clamp(height / 1080.0f, 0.6f, 2.5f);
    return height > 1400 ? std::min(2.5f, height / 1080.0f) : 1.0f;
}

// Panels draw no background of their own: the frame is cleared to the panel
// colour, and on SDL's software renderer a full-window fill costs milliseconds.
bool begin_panel(App& app, Panel panel, const char* title, ImGuiWindowFlags extra_flags)
{
    const Rect& r = app.layout[panel];
    ImGui::SetNextWindowPos(ImVec2(r.x, r.y));
    ImGui::SetNextWindowSize(ImVec2(r.w, r.h));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                   ImGuiWindowFlags_NoBackground | extra_flags;
    return ImGui::Begin(title, nullptr, flags);
}

void end_panel() { ImGui::End(); }

void fill_panel(ImU32 colour)
{
    const ImVec2 p = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), colour);
}

// end_line() starts the next line the way ImGui does after an item without SameLine():
// NewLine() would first place an empty item where SameLine() left the
// cursor, past the window's edge, and the window would count it as contents.
void wrap_unless_fits(float width)
{
    const float x = ImGui::GetCursorPosX();
    if (x <= ImGui::GetStyle().WindowPadding.x + 1 || x + width <= ImGui::GetWindowContentRegionMax().x) return;
    end_line();
}

void end_line()
{
    ImGuiWindow* w = ImGui::GetCurrentWindow();
    w->DC.CursorPos = ImVec2(w->Pos.x + w->DC.Indent.x + w->DC.ColumnsOffset.x,
                             w->DC.CursorPosPrevLine.y + w->DC.PrevLineSize.y + ImGui::GetStyle().ItemSpacing.y);
    w->DC.CurrLineSize = ImVec2(0, 0);
    w->DC.CurrLineTextBaseOffset = 0;
}

void help_marker(const char* text)
{
    ImGui::SameLine(0, 4);
    wrap_unless_fits(ImGui::CalcTextSize("(?)").x);
    ImGui::TextDisabled("(?)");
    help_tooltip(text);
}

void help_tooltip(const char* text)
{
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void legend_swatch(ImU32 fill, const char* label, ImU32 outline)
{
    const float s = ImGui::GetTextLineHeight() * 0.8f;
    wrap_unless_fits(s + 4 + ImGui::CalcTextSize(label).x);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float dy = (ImGui::GetTextLineHeight() - s) * 0.5f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (fill) dl->AddRectFilled(ImVec2(p.x, p.y + dy), ImVec2(p.x + s, p.y + dy + s), fill);
    if (outline) dl->AddRect(ImVec2(p.x, p.y + dy), ImVec2(p.x + s, p.y + dy + s), outline, 0, 0, 2.0f);
    ImGui::Dummy(ImVec2(s, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, 4);
    ImGui::TextUnformatted(label);
    ImGui::SameLine(0, ImGui::GetFontSize());
}

void add_region(App& app, const std::string& name, ImVec2 min, ImVec2 max)
{
    app.regions[name] = {min.x, min.y, max.x - min.x, max.y - min.y};
}

void add_view_region(App& app, const std::string& name)
{
    const ImRect& r = ImGui::GetCurrentWindow()->InnerClipRect;
    add_region(app, name, r.Min, r.Max);
}

bool keep_following(bool& follow)
{
    const ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsWindowHovered() && (io.MouseWheel != 0 || io.MouseWheelH != 0 || ImGui::IsMouseDown(ImGuiMouseButton_Left)))
        follow = false;
    return follow;
}

void text_centered(ImDrawList* dl, ImFont* font, float size, ImVec2 center, ImU32 colour, const std::string& text)
{
    const ImVec2 ts = font->CalcTextSizeA(size, 1e9f, 0, text.c_str());
    dl->AddText(font, size, ImVec2(std::floor(center.x - ts.x * 0.5f), std::floor(center.y - ts.y * 0.5f)), colour,
                text.c_str());
}

void arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, ImU32 colour, float thickness, float progress)
{
    const ImVec2 tip = lerp(from, to, progress);
    dl->AddLine(from, tip, colour, thickness);
    arrow_head(dl, tip, ImVec2(to.x - from.x, to.y - from.y), colour, 3.0f + thickness * 2.5f);
}

void curved_arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, float bend, ImU32 colour, float thickness, float progress)
{
    const ImVec2 d(to.x - from.x, to.y - from.y);
    const float len = std::max(1.0f, std::sqrt(d.x * d.x + d.y * d.y));
    const ImVec2 n(d.y / len * bend, -d.x / len * bend);
    const ImVec2 c1(from.x + d.x * 0.25f + n.x, from.y + d.y * 0.25f + n.y);
    const ImVec2 c2(from.x + d.x * 0.75f + n.x, from.y + d.y * 0.75f + n.y);
    const auto at = [&](float t) {
        const float u = 1 - t;
        return ImVec2(u * u * u * from.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * to.x,
                      u * u * u * from.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * to.y);
    };
    // About one segment per 12 pixels: short arcs between neighbours need few,
    // and each segment is triangles for the software renderer.
    const int full = std::clamp(int(len / 12.0f), 3, 12);
    const int segments = std::max(1, int(std::ceil(float(full) * progress)));
    ImVec2 prev = from;
    for (int i = 1; i <= segments; ++i) {
        const ImVec2 p = at(progress * float(i) / float(segments));
        dl->AddLine(prev, p, colour, thickness);
        if (i == segments) arrow_head(dl, p, ImVec2(p.x - prev.x, p.y - prev.y), colour, 3.0f + thickness * 2.5f);
        prev = p;
    }
}

bool instruction_picker(const char* id, const std::vector<std::size_t>& events, std::optional<std::size_t>& focus)
{
    ImGui::PushID(id);
    const auto it = focus ? std::find(events.begin(), events.end(), *focus) : events.end();
    const long at = it == events.end() ? -1 : long(it - events.begin());
    bool changed = false;
    ImGui::BeginDisabled(at <= 0);
    if (ImGui::ArrowButton("prev", ImGuiDir_Left)) focus = events[std::size_t(at - 1)], changed = true;
    ImGui::EndDisabled();
    ImGui::SameLine(0, 4);
    ImGui::BeginDisabled(at + 1 >= long(events.size()));
    if (ImGui::ArrowButton("next", ImGuiDir_Right)) focus = events[std::size_t(at + 1)], changed = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Text("instruction %ld of %zu", at + 1, events.size());
    ImGui::PopID();
    return changed;
}

std::string wrap_at_spaces(const std::string& text, float width)
{
    const float space = ImGui::CalcTextSize(" ").x;
    std::string out;
    float line_w = -1;  // the current line's width; < 0 before its first word
    for (std::size_t word = 0; word <= text.size();) {
        const std::size_t end = std::min(text.find_first_of(" \n", word), text.size());
        const std::string_view piece(text.data() + word, end - word);
        const float piece_w = ImGui::CalcTextSize(piece.data(), piece.data() + piece.size()).x;
        if (line_w < 0) {
            line_w = piece_w;
        } else if (line_w + space + piece_w > width) {
            out += '\n';
            line_w = piece_w;
        } else {
            out += ' ';
            line_w += space + piece_w;
        }
        out += piece;
        if (end < text.size() && text[end] == '\n') out += '\n', line_w = -1;
        word = end + 1;
    }
    return out;
}

namespace {

// Whether byte i of UTF-8 text starts a character (or is its end).
bool starts_character(const std::string& text, std::size_t i) { return i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80; }

}  // namespace

std::string elided(const std::string& text, float width)
{
    const auto fits = [&](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x <= width; };
    if (fits(text)) return text;
    // The most bytes kept, half from the start and half from the end, cut at characters.
    for (std::size_t kept = text.size(); kept-- > 0;) {
        std::size_t head = kept / 2, tail = text.size() - (kept - head);
        while (!starts_character(text, head)) --head;
        while (!starts_character(text, tail)) ++tail;
        const std::string cut = text.substr(0, head) + "…" + text.substr(tail);
        if (fits(cut)) return cut;
    }
    return "…";
}

void wrapped_text(ImU32 colour, const std::string& text)
{
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::PushTextWrapPos(0.0f);  // a word wider than the line still wraps within it
    ImGui::TextUnformatted(wrap_at_spaces(text, ImGui::GetContentRegionAvail().x).c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

void wrapped_text_after(ImU32 colour, const std::string& text)
{
    // Beside the last item only where the text fits whole or can wrap within
    // at least half a line; what is left right of the item may be a sliver.
    const float half_line = (ImGui::GetWindowContentRegionMax().x - ImGui::GetWindowContentRegionMin().x) * 0.5f;
    ImGui::SameLine();
    wrap_unless_fits(std::min(ImGui::CalcTextSize(text.c_str()).x, half_line));
    wrapped_text(colour, text);
}

std::string array_name(App& app, wl::trace::Space space, std::uint8_t array)
{
    if (space == wl::trace::Space::Shared) {
        if (const TracedRun* run = current_run(app))
            for (const auto& info : shared_arrays(run->block))
                if (info.id == array) return info.name;
        return "shared " + std::to_string(array);
    }
    const Version& v = current_version(app);
    const auto names = kernel_parameter_names(app.sources.get(v.file), v.kernel);
    return array < names.size() && !names[array].empty() ? names[array] : "argument " + std::to_string(array);
}

std::string instruction_label(App& app, const wl::trace::WarpEvent& e)
{
    const TracedRun* run = current_run(app);
    return printf_string("warp %u · %s %s · line %u · %u of %u lanes", e.warp, wl::trace::kind_name(e.kind),
                         array_name(app, e.space, e.array).c_str(), e.site.line, unsigned(std::popcount(e.mask)),
                         run ? run->block.warp_size : wl::trace::kDefaultWarpSize);
}

bool no_trace_note(App& app)
{
    if (current_run(app)) return false;
    wrapped_text(palette().muted, current_trace(app).pending ? "Tracing: the steps come when the trace is done (progress below)."
                                                             : "No trace: the launch did not complete (the threads panel says why).");
    return true;
}

}  // namespace warplab::viewer
