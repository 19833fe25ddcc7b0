// The version's kernel source. Lines that changed from the previous version
// are tinted; the lines of the current step's accesses are marked. When the
// step runs in a file the version includes (v6's tail is v5's), that file is shown.
#include <imgui.h>

#include <set>

#include "viewer/draw_util.h"
#include "viewer/format.h"
#include "viewer/panels.h"
#include "viewer/step_model.h"

namespace warplab::viewer {

namespace {

struct ShownSource {
    const SourceFile* file = nullptr;
    std::vector<LineChange> changes;  // empty: nothing to compare with
    std::set<std::uint32_t> step_lines;
    std::uint32_t fault_line = 0;     // the line a faulted launch stopped at, when it is in this file
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

void code_lines(App& app, const ShownSource& s)
{
    ImGui::PushFont(fonts(app).mono);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const float gutter = ImGui::CalcTextSize("> 000 ").x;
    const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetWindowContentRegionMax().x);
    float first_step_y = -1;
    for (std::size_t i = 0; i < s.file->lines.size(); ++i) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        if (const ImU32 bg = line_background(s, i)) dl->AddRectFilled(p, ImVec2(p.x + width + 2000, p.y + line_h), bg);
        const bool step_line = s.step_lines.count(std::uint32_t(i + 1)) > 0 || s.fault_line == i + 1;
        if (step_line) {
            const float m = line_h * 0.3f;
            dl->AddTriangleFilled(ImVec2(p.x + 2, p.y + m), ImVec2(p.x + 2, p.y + line_h - m),
                                  ImVec2(p.x + 2 + (line_h - 2 * m), p.y + line_h * 0.5f), palette().step_marker);
            if (first_step_y < 0) first_step_y = ImGui::GetCursorPosY();
        }
        ImGui::SetCursorScreenPos(ImVec2(p.x + gutter - ImGui::CalcTextSize("000 ").x, p.y));
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().muted), "%3zu", i + 1);
        ImGui::SameLine(gutter);
        if (s.fault_line == i + 1) ImGui::PushStyleColor(ImGuiCol_Text, palette().fault_text);
        ImGui::TextUnformatted(s.file->lines[i].c_str());
        if (s.fault_line == i + 1) ImGui::PopStyleColor();
    }
    if (app.follow_step.source && first_step_y >= 0) {
        // A third of the way down, with lines above for context; a view of a
        // few lines (a small window, presenting) starts at the step's line.
        const float h = ImGui::GetWindowHeight(), above = h > line_h * 6 ? h * 0.35f : 0.0f;
        ImGui::SetScrollY(std::max(0.0f, first_step_y - above));
        app.follow_step.source = false;
    }
    ImGui::PopFont();
}

// What changed from the previous version and what to expect, in the version's own words.
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
    wrapped_text(palette().text, (prev ? std::string("Changed from ") + lab.versions[*prev].id + ": " : std::string("Start: ")) + v.changed);
    if (!app.presenter) wrapped_text(palette().muted, std::string("Expected: ") + v.expected);
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
    if (s.fault_line) legend_swatch(palette().fault_banner, "where it faulted");
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
            ImGui::BeginChild("##code", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
            code_lines(app, s);
            ImGui::EndChild();
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
