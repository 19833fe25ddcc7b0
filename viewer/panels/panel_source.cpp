// The version's kernel source. Lines that changed from the previous version
// are tinted; the lines of the current step's accesses are marked. When the
// step runs in a file the version includes (v6's tail is v5's), that file is shown.
#include <imgui.h>

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "viewer/panels/barrier_switch.h"
#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/app/lesson_player.h"
#include "viewer/panels/panels.h"
#include "viewer/model/step_model.h"

namespace warplab::viewer {

namespace {

struct ShownSource {
    const SourceFile* file = nullptr;
    std::vector<LineChange> changes;  // empty: nothing to compare with
    std::set<std::uint32_t> step_lines;
    std::uint32_t fault_line = 0;     // the line a faulted launch stopped at, when it is in this file
    std::map<std::uint32_t, std::string> warned;  // lines nvcc warned about (a user's file): the warning
    std::string compared_with;        // the previous version's id
};

std::set<std::uint32_t> step_lines_in(App& app, std::uint32_t hash)
{
    std::set<std::uint32_t> lines;
    const TracedRun* run = current_run(app);
    if (!run) return lines;
    const EventRange r = step_events(run->block, app.sel.step);
    for (std::size_t i = r.begin; i < r.end; ++i) {
        const auto& e = run->block.events[i];
        if (e.site.file_hash == hash && e.kind != wl::trace::Kind::Declare) lines.insert(e.site.line);
    }
    return lines;
}

ShownSource shown_source(App& app)
{
    const Lab& lab = current_lab(app);
    const Version& v = current_version(app);
    ShownSource s;
    s.file = &app.sources.get(v.file);
    s.step_lines = step_lines_in(app, s.file->hash);
    if (s.step_lines.empty())
        for (const std::string& inc : included_kernel_files(*s.file)) {
            const SourceFile& f = app.sources.get(inc);
            if (auto lines = step_lines_in(app, f.hash); !lines.empty()) {
                s.file = &f;
                s.step_lines = std::move(lines);
                return s;  // an included file: no diff against the previous version
            }
        }
    const TraceSlot& slot = current_trace(app);
    if (slot.fault && wl::trace::file_hash(slot.fault_file.c_str()) == s.file->hash) s.fault_line = slot.fault_line;
    if (slot.run) s.warned = warned_lines(slot.run->result.compile_warnings, s.file->path);
    if (const auto prev = compared_version(app)) {
        s.changes = changed_lines(app.sources.get(lab.versions[*prev].file).lines, s.file->lines);
        s.compared_with = lab.versions[*prev].id;
    }
    return s;
}

ImU32 line_background(const ShownSource& s, std::size_t i)
{
    if (s.fault_line == i + 1) return palette().fault_banner;
    if (s.step_lines.count(std::uint32_t(i + 1))) return palette().step_line;
    if (i < s.changes.size() && s.changes[i] == LineChange::Changed) return palette().changed_line;
    if (i < s.changes.size() && s.changes[i] == LineChange::CommentChanged) return palette().comment_changed_line;
    return 0;
}

// A line a lesson's slide highlights (its lines are the version's own file's).
bool slide_highlights(const App& app, const ShownSource& s, std::size_t i)
{
    const auto& lines = highlighted_lines(app);
    return s.file->path == current_version(app).file && std::find(lines.begin(), lines.end(), std::uint32_t(i + 1)) != lines.end();
}

// A line of code as it fits the width: whole, or broken between words with
// its continuations indented one step further than the line itself.
std::vector<std::string> fitted_rows(const std::string& line, float width)
{
    if (ImGui::CalcTextSize(line.c_str()).x <= width) return {line};
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    const std::string lead(indent, ' '), more = lead + "    ";
    const std::string body = wrap_at_spaces(line.substr(indent), width - ImGui::CalcTextSize(more.c_str()).x);
    std::vector<std::string> rows;
    for (std::size_t start = 0; start <= body.size();) {
        const std::size_t end = std::min(body.find('\n', start), body.size());
        std::string row = (rows.empty() ? lead : more) + body.substr(start, end - start);
        // A word wider than the line (a long expression) breaks where the width ends.
        while (row.size() > more.size() + 1 && ImGui::CalcTextSize(row.c_str()).x > width) {
            std::size_t fit = row.size() - 1;
            while (fit > more.size() + 1 && ImGui::CalcTextSize(row.c_str(), row.c_str() + fit).x > width) --fit;
            rows.push_back(row.substr(0, fit));
            row = more + row.substr(fit);
        }
        rows.push_back(row);
        start = end + 1;
    }
    return rows;
}

// A line nvcc warned about: underlined, its warning shown on hover (the
// status line lists them too), as an editor marks a compiler's warning.
void warned_mark(App& app, const std::string& warning, ImVec2 min, ImVec2 max)
{
    ImGui::GetWindowDrawList()->AddLine(ImVec2(min.x, max.y - 1), ImVec2(max.x, max.y - 1), palette().partial_outline, 2.0f);
    add_region(app, "source.warned_line", min, max);
    if (ImGui::IsMouseHoveringRect(min, max)) ImGui::SetTooltip("nvcc warns: %s", warning.c_str());
}

// Where a set of lines lies on screen: from the first one's top to the last
// one's bottom, and where the first one's rows end.
struct LineSpan {
    std::optional<ImVec2> min;
    ImVec2 max, first_max;
    void add(ImVec2 top_left, ImVec2 bottom_right)
    {
        if (!min) min = top_left, first_max = bottom_right;
        max = ImVec2(std::max(max.x, bottom_right.x), bottom_right.y);
    }
    // Named for the tests: all of them ("source.<name>_lines") and the first ("source.first_<name>_line").
    void name(App& app, const std::string& name) const
    {
        if (!min) return;
        add_region(app, "source." + name + "_lines", *min, max);
        add_region(app, "source.first_" + name + "_line", *min, first_max);
    }
};

// Every line, long ones wrapped, so that the step's lines are seen whole;
// the view scrolls to them (all of them where they fit, a third of the way
// down with lines above for context; else from the first) until the user
// scrolls it. A lesson's slide is about the lines it highlights: the view
// follows those, all where they fit; where they do not, the ones it adds to
// the step's (method v17's second kernel, below the first's step line).
void code_lines(App& app, const ShownSource& s)
{
    ImGui::PushFont(fonts(app).mono);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const float gutter = ImGui::CalcTextSize("> 000 ").x;
    const float width = ImGui::GetContentRegionAvail().x;
    LineSpan step, slide, slide_extra;  // the step's rows, the slide's, and the slide's that are not the step's, on screen
    const bool own_file = s.file->path == current_version(app).file;  // the barrier switch's lines are the version's own
    for (std::size_t i = 0; i < s.file->lines.size(); ++i) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const bool barrier = own_file && calls_barrier(s.file->lines[i]);  // its switch keeps the row's right end
        const std::vector<std::string> rows = fitted_rows(s.file->lines[i], width - gutter - (barrier ? barrier_switch_width() : 0));
        const float h = line_h * float(rows.size());
        if (const ImU32 bg = line_background(s, i)) dl->AddRectFilled(p, ImVec2(p.x + width, p.y + h), bg);
        if (slide_highlights(app, s, i)) dl->AddRect(p, ImVec2(p.x + width, p.y + h), palette().focus_outline, 0, 0, 2.0f);
        const bool step_line = s.step_lines.count(std::uint32_t(i + 1)) > 0 || s.fault_line == i + 1;
        if (step_line) {
            const float m = line_h * 0.3f;
            dl->AddTriangleFilled(ImVec2(p.x + 2, p.y + m), ImVec2(p.x + 2, p.y + line_h - m),
                                  ImVec2(p.x + 2 + (line_h - 2 * m), p.y + line_h * 0.5f), palette().step_marker);
        }
        ImGui::SetCursorScreenPos(ImVec2(p.x + gutter - ImGui::CalcTextSize("000 ").x, p.y));
        const auto warned = s.warned.find(std::uint32_t(i + 1));
        const bool warned_line = warned != s.warned.end();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(warned_line ? palette().partial_outline : palette().muted), "%3zu", i + 1);
        if (s.fault_line == i + 1) ImGui::PushStyleColor(ImGuiCol_Text, palette().fault_text);
        float right = p.x + gutter;
        for (std::size_t r = 0; r < rows.size(); ++r) {
            if (r == 0) ImGui::SameLine(gutter);
            else ImGui::SetCursorScreenPos(ImVec2(p.x + gutter, p.y + line_h * float(r)));
            ImGui::TextUnformatted(rows[r].c_str());
            right = std::max(right, ImGui::GetItemRectMax().x);
        }
        if (s.fault_line == i + 1) ImGui::PopStyleColor();
        if (warned_line) warned_mark(app, warned->second, ImVec2(p.x + gutter, p.y), ImVec2(right, p.y + h));
        if (barrier) barrier_switch(app, std::uint32_t(i + 1), ImVec2(p.x + gutter, p.y), ImVec2(p.x + width, p.y + line_h));
        if (step_line) step.add(ImVec2(p.x + gutter, p.y), ImVec2(right, p.y + h));
        if (slide_highlights(app, s, i)) {
            slide.add(ImVec2(p.x + gutter, p.y), ImVec2(right, p.y + h));
            if (!step_line) slide_extra.add(ImVec2(p.x + gutter, p.y), ImVec2(right, p.y + h));
        }
    }
    step.name(app, "step");
    slide.name(app, "slide");
    slide_extra.name(app, "slide_extra");
    // The slide's lines where it highlights some here, else the step's (a host program's step has none: no trace).
    const float view_h = ImGui::GetWindowHeight();
    const bool slide_fits = slide.min && slide.max.y - slide.min->y <= view_h;
    const LineSpan& followed = !slide.min ? step : slide_fits || !slide_extra.min ? slide : slide_extra;
    if (followed.min && keep_following(app.follow_step.source)) {
        const float span = followed.max.y - followed.min->y;
        const float top = followed.min->y - ImGui::GetWindowPos().y + ImGui::GetScrollY();  // in the code's own coordinates
        const float above = span + line_h > view_h ? 0.0f : std::min(view_h * 0.35f, view_h - span - line_h);
        ImGui::SetScrollY(std::max(0.0f, top - above));
    }
    add_view_region(app, "source.view");
    ImGui::PopFont();
}

// What changed from the previous version and what to expect, in the
// version's own words, taking at most a third of the panel: where they are
// longer (v10's) they scroll, and the code keeps the rest.
void what_changed(App& app)
{
    const Lab& lab = current_lab(app);
    const Version& v = current_version(app);
    const auto prev = compared_version(app);
    if (!app.presenter) {  // presenting, the header names the version
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().active), "%s", v.id);
        ImGui::SameLine();
        wrap_unless_fits(ImGui::CalcTextSize(v.name).x);
        ImGui::TextUnformatted(v.name);
        if (v.variant) {
            const char* note = app.user_lab && v.id == std::string_view(kUserVersionId) ? "(yours, beside the ladder)"
                                                                                         : "(a variant kept for teaching)";
            ImGui::SameLine();
            wrap_unless_fits(ImGui::CalcTextSize(note).x);
            ImGui::TextDisabled("%s", note);
        }
    }
    std::vector<std::pair<ImU32, std::string>> notes = {
        {palette().text, (prev ? std::string("Changed from ") + lab.versions[*prev].id + ": " : std::string("Start: ")) + v.changed}};
    if (!app.presenter) notes.push_back({palette().muted, std::string("Expected: ") + v.expected});
    // A child without a border has no padding and clips at its contents' left
    // edge, so a line starting with a glyph that reaches left of its origin
    // (the sans font's T: "TF32 error" in matmul v12's note) lost its first
    // pixel. Two pixels of padding move the clip a pixel left of the text.
    const ImVec2 padding(2, 0);
    const float width = ImGui::GetContentRegionAvail().x - 2 * padding.x;
    float h = 0;
    for (const auto& [colour, text] : notes)
        h += ImGui::CalcTextSize(wrap_at_spaces(text, width).c_str(), nullptr, false, width).y + ImGui::GetStyle().ItemSpacing.y;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, padding);
    ImGui::BeginChild("##changed", ImVec2(0, std::min(h, std::floor(ImGui::GetWindowHeight() * 0.33f))), false,
                      ImGuiWindowFlags_AlwaysUseWindowPadding);
    ImGui::PopStyleVar();
    for (const auto& [colour, text] : notes) wrapped_text(colour, text);
    ImGui::EndChild();
}

void source_legend(App& app, const ShownSource& s)
{
    const std::string own = current_version(app).file;
    if (s.file->path == own)
        wrapped_text(palette().muted, s.file->path);
    else  // the step runs in a file the version includes
        wrapped_text(palette().muted, s.file->path + ", included by " + own.substr(own.rfind('/') + 1));
    if (!s.changes.empty()) legend_swatch(palette().changed_line, ("changed from " + s.compared_with).c_str());
    legend_swatch(palette().step_line, "this step's accesses");
    if (!highlighted_lines(app).empty() && s.file->path == own) legend_swatch(0, "the slide's lines", palette().focus_outline);
    if (s.fault_line) legend_swatch(palette().fault_banner, "where it faulted");
    if (!s.warned.empty()) legend_swatch(palette().partial_outline, warned_legend(s.warned).c_str());
    end_line();
}

}  // namespace

void source_panel(App& app)
{
    if (begin_panel(app, Panel::Source, "Source")) {
        const ShownSource s = shown_source(app);
        what_changed(app);
        ImGui::Separator();
        if (!s.file->found) {
            const ImVec2 p = ImGui::GetCursorScreenPos();
            ImGui::TextDisabled("%s not found under %s", s.file->path.c_str(), app.sources.root().c_str());
            add_region(app, "source.missing", p, ImGui::GetItemRectMax());
        } else {
            source_legend(app, s);
            without_barrier_banner(app);
            ImGui::BeginChild("##code", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);  // a word wider than the view
            code_lines(app, s);
            ImGui::EndChild();
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
