#include "viewer/panels/text_check.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "viewer/model/format.h"

namespace warplab::viewer {

namespace {

// One glyph as ImFont::RenderText emits it: a quad of 4 vertices and 6
// indices (0 1 2, 0 2 3), corners (x0,y0) (x1,y0) (x1,y1) (x0,y1), its
// texture corners those of the glyph in the font atlas.
struct Glyph {
    ImVec2 min, max;
    ImVec4 clip;
    unsigned codepoint = 0;  // 0: a glyph cut by the CPU (its UVs match none)
};

struct Run {
    std::string window, text;
    ImVec2 min{1e9f, 1e9f}, max{-1e9f, -1e9f};
    std::vector<Glyph> glyphs;
};

using UvKey = std::pair<long, long>;
UvKey uv_key(ImVec2 uv) { return {std::lround(uv.x * 65536.0), std::lround(uv.y * 65536.0)}; }

std::map<UvKey, unsigned> glyph_uvs()
{
    std::map<UvKey, unsigned> out;
    for (const ImFont* f : ImGui::GetIO().Fonts->Fonts)
        for (const ImFontGlyph& g : f->Glyphs) out.emplace(uv_key(ImVec2(g.U0, g.V0)), g.Codepoint);
    return out;
}

bool same(float a, float b) { return std::fabs(a - b) < 1e-4f; }

// The quad at idx[i..i+5], if it is a glyph.
bool glyph_at(const ImDrawList& dl, const ImDrawCmd& cmd, unsigned i, const std::map<UvKey, unsigned>& uvs, Glyph& g)
{
    const ImDrawIdx* idx = dl.IdxBuffer.Data + cmd.IdxOffset + i;
    const unsigned b = idx[0];
    if (idx[1] != b + 1 || idx[2] != b + 2 || idx[3] != b || idx[4] != b + 2 || idx[5] != b + 3) return false;
    const ImDrawVert* v = dl.VtxBuffer.Data + cmd.VtxOffset + b;
    if (!same(v[0].pos.y, v[1].pos.y) || !same(v[1].pos.x, v[2].pos.x) || !same(v[2].pos.y, v[3].pos.y) || !same(v[3].pos.x, v[0].pos.x))
        return false;
    if (same(v[0].uv.x, v[1].uv.x) || same(v[0].uv.y, v[3].uv.y)) return false;  // a shape: one texel (the white pixel)
    g.min = v[0].pos;
    g.max = v[2].pos;
    g.clip = cmd.ClipRect;
    const auto it = uvs.find(uv_key(v[0].uv));
    g.codepoint = it == uvs.end() ? 0 : it->second;
    return true;
}

// A glyph continues the run when it sits on the same line a little to the
// right of the last one (glyph boxes of "__" cover each other; a second
// string drawn back over the first starts left of its last glyph).
bool continues(const Run& r, const Glyph& g)
{
    if (r.glyphs.empty()) return false;
    const Glyph& p = r.glyphs.back();
    const float h = std::max(p.max.y - p.min.y, g.max.y - g.min.y);
    const bool same_line = g.min.y < p.max.y && g.max.y > p.min.y;
    return same_line && g.min.x > p.min.x + 0.5f && g.min.x <= p.max.x + 2.5f * h && p.clip.x == g.clip.x && p.clip.y == g.clip.y;
}

void add_glyph(Run& r, const Glyph& g)
{
    if (!r.glyphs.empty() && g.min.x - r.glyphs.back().max.x > 0.3f * (g.max.y - g.min.y)) r.text += ' ';
    r.text += g.codepoint >= 32 && g.codepoint < 127 ? char(g.codepoint) : '?';
    r.min = ImVec2(std::min(r.min.x, g.min.x), std::min(r.min.y, g.min.y));
    r.max = ImVec2(std::max(r.max.x, g.max.x), std::max(r.max.y, g.max.y));
    r.glyphs.push_back(g);
}

std::vector<Run> text_runs(const ImDrawData& data)
{
    const auto uvs = glyph_uvs();
    std::vector<Run> runs;
    for (int l = 0; l < data.CmdListsCount; ++l) {
        const ImDrawList& dl = *data.CmdLists[l];
        const std::string owner = dl._OwnerName ? dl._OwnerName : "?";
        Run run;
        for (const ImDrawCmd& cmd : dl.CmdBuffer) {
            if (cmd.UserCallback) continue;
            for (unsigned i = 0; i + 6 <= cmd.ElemCount;) {
                Glyph g;
                if (!glyph_at(dl, cmd, i, uvs, g)) {
                    i += 3;
                    continue;
                }
                i += 6;
                if (!continues(run, g) && !run.glyphs.empty()) runs.push_back(std::move(run)), run = Run{};
                run.window = owner;
                add_glyph(run, g);
            }
        }
        if (!run.glyphs.empty()) runs.push_back(std::move(run));
    }
    return runs;
}

// Half a pixel of slack: glyph quads are placed at fractional positions.
// Along an axis the window scrolls, text at its edge is what scrolling shows.
bool clipped(const Glyph& g, bool scrolls_x, bool scrolls_y)
{
    constexpr float e = 0.5f;
    const bool cut_x = g.min.x < g.clip.x - e || g.max.x > g.clip.z + e;
    const bool cut_y = g.min.y < g.clip.y - e || g.max.y > g.clip.w + e;
    return (g.codepoint == 0 && !scrolls_x && !scrolls_y) || (cut_x && !scrolls_x) || (cut_y && !scrolls_y);
}

// What of a glyph is on screen: its box inside its clip rectangle (a row
// scrolled under a table's frozen header is not seen, so it covers nothing).
Glyph visible(const Glyph& g)
{
    Glyph v = g;
    v.min = ImVec2(std::max(g.min.x, g.clip.x), std::max(g.min.y, g.clip.y));
    v.max = ImVec2(std::min(g.max.x, g.clip.z), std::min(g.max.y, g.clip.w));
    return v;
}

// Glyph boxes carry a pixel of padding: overlaps of more than that are text on text.
bool overlap(const Glyph& glyph_a, const Glyph& glyph_b)
{
    constexpr float pad = 1.5f;
    const Glyph a = visible(glyph_a), b = visible(glyph_b);
    return a.min.x + pad < b.max.x - pad && b.min.x + pad < a.max.x - pad && a.min.y + pad < b.max.y - pad && b.min.y + pad < a.max.y - pad;
}

void find_overlaps(const std::vector<Run>& runs, std::vector<TextProblem>& out)
{
    constexpr float cell = 64;
    std::unordered_map<long long, std::vector<std::size_t>> grid;  // cell -> runs whose box touches it
    const auto key = [](long x, long y) { return (static_cast<long long>(x) << 32) ^ static_cast<long long>(y & 0xFFFFFFFF); };
    std::vector<std::pair<std::size_t, std::size_t>> reported;
    for (std::size_t r = 0; r < runs.size(); ++r)
        for (long y = long(runs[r].min.y / cell); y <= long(runs[r].max.y / cell); ++y)
            for (long x = long(runs[r].min.x / cell); x <= long(runs[r].max.x / cell); ++x) {
                auto& here = grid[key(x, y)];
                for (std::size_t o : here) {
                    if (std::find(reported.begin(), reported.end(), std::make_pair(o, r)) != reported.end()) continue;
                    const Run &a = runs[o], &b = runs[r];
                    if (a.min.x >= b.max.x || b.min.x >= a.max.x || a.min.y >= b.max.y || b.min.y >= a.max.y) continue;
                    bool hit = false;
                    for (const Glyph& ga : a.glyphs)
                        for (const Glyph& gb : b.glyphs) hit = hit || overlap(ga, gb);
                    if (!hit) continue;
                    reported.push_back({o, r});
                    out.push_back({TextProblem::Kind::Overlap, a.window, "\"" + a.text + "\" and \"" + b.text + "\"",
                                   ImVec2(std::max(a.min.x, b.min.x), std::max(a.min.y, b.min.y)),
                                   ImVec2(std::min(a.max.x, b.max.x), std::min(a.max.y, b.max.y))});
                }
                here.push_back(r);
            }
}

// Whether a window shows, or would show, a scroll bar to reach what is past its edge.
bool scrolls_x(const ImGuiWindow& w) { return w.ScrollbarX || (w.Flags & ImGuiWindowFlags_HorizontalScrollbar); }
bool scrolls_y(const ImGuiWindow& w) { return w.ScrollbarY || !(w.Flags & ImGuiWindowFlags_NoScrollbar); }

// Items past the edge of a window that cannot scroll there are cut off, or
// not drawn at all (ImGui skips items outside the clip rectangle).
void find_overflows(std::vector<TextProblem>& out)
{
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
        if (!w->WasActive || w->Hidden || (w->Flags & ImGuiWindowFlags_Tooltip)) continue;
        const ImRect& inner = w->InnerClipRect;
        const ImVec2 end = w->DC.CursorMaxPos;
        const bool past_bottom = end.y > inner.Max.y + 1 && !scrolls_y(*w);
        const bool past_right = end.x > inner.Max.x + 1 && !scrolls_x(*w);
        if (past_bottom || past_right)
            out.push_back({TextProblem::Kind::Overflow, w->Name, printf_string("contents end at (%.0f, %.0f)", end.x, end.y), inner.Min, inner.Max});
    }
}

}  // namespace

std::string TextProblem::describe() const
{
    static constexpr const char* kinds[] = {"text clipped", "text over text", "contents past the edge"};
    return printf_string("%s in '%s' at (%.0f,%.0f)-(%.0f,%.0f): %s", kinds[int(kind)], window.c_str(), min.x, min.y, max.x, max.y,
                         text.c_str());
}

std::vector<TextProblem> check_text(const ImDrawData& data)
{
    std::vector<TextProblem> out;
    const std::vector<Run> runs = text_runs(data);
    for (const Run& r : runs) {
        const ImGuiWindow* w = ImGui::FindWindowByName(r.window.c_str());
        const bool sx = w && scrolls_x(*w), sy = w && scrolls_y(*w);
        const auto cut = std::find_if(r.glyphs.begin(), r.glyphs.end(), [&](const Glyph& g) { return clipped(g, sx, sy); });
        if (cut != r.glyphs.end()) out.push_back({TextProblem::Kind::Clipped, r.window, "\"" + r.text + "\"", r.min, r.max});
    }
    find_overlaps(runs, out);
    find_overflows(out);
    return out;
}

}  // namespace warplab::viewer
