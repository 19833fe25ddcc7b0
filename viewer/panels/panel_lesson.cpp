// A lesson's bar above the status line: where in the lesson, the slide's
// caption, its question with a box for the learner's answer, and the answer
// read from the trace once revealed (R, or a clicker's B or period).
#include <imgui.h>

#include <algorithm>
#include <cstring>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/app/lesson_player.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

struct BarLine {
    ImU32 colour;
    std::string text;
};

std::string where_text(const App& app)
{
    const Lesson& lesson = *app.lesson.lesson;
    const bool last = app.lesson.slide + 1 == lesson.slides.size();
    return printf_string("%s · slide %zu of %zu · %s", lesson.title.c_str(), app.lesson.slide + 1, lesson.slides.size(),
                         last ? "the last; PageUp goes back" : "PageDown: next, PageUp: back");
}

// What gives the slide's answer: its "trace", or the lab's "recording" (a recorded metric's).
std::string answer_source(const App& app) { return recorded_metric(current_slide(app).question->answer.metric) ? "recording" : "trace"; }

std::string revealed_text(App& app)
{
    const SlideAnswer answer = slide_answer(app);
    const LessonQuestion& q = *current_slide(app).question;
    const std::string source = answer_source(app);
    if (!answer.value) return "The " + source + " gives no answer here: " + answer.error;
    return "The " + source + " says " + answer_text(*answer.value) + (q.explanation.empty() ? "" : ". " + q.explanation);
}

// The bar's lines of text, the answer box's row aside.
std::vector<BarLine> bar_lines(App& app)
{
    const Slide& slide = current_slide(app);
    std::vector<BarLine> lines = {{palette().muted, where_text(app)}, {palette().text, slide.caption}};
    if (!slide.question) return lines;
    lines.push_back({palette().active, "Question: " + slide.question->text});
    if (app.lesson.revealed) lines.push_back({palette().text, revealed_text(app)});
    return lines;
}

bool answer_row(const App& app) { return current_slide(app).question && !app.lesson.revealed; }

float text_height(const std::string& text, float width)
{
    return ImGui::CalcTextSize(wrap_at_spaces(text, width).c_str(), nullptr, false, width).y + ImGui::GetStyle().ItemSpacing.y;
}

// The learner's answer before the reveal: typed, checked against the trace (Enter or Check).
void answer_box(App& app)
{
    char typed[64] = {};
    std::strncpy(typed, app.lesson.typed.c_str(), sizeof typed - 1);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Your answer");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::PushStyleColor(ImGuiCol_FrameBg, palette().panel);  // the box stands out of the grey bar
    const bool entered = ImGui::InputText("##answer", typed, sizeof typed, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::PopStyleColor();
    add_region(app, "lesson.answer", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    if (typed != app.lesson.typed) app.lesson.typed = typed, app.lesson.matched.reset();
    ImGui::SameLine();
    if (ImGui::Button("Check") || entered) check_typed_answer(app);
    ImGui::SameLine();
    const std::string source = answer_source(app);
    if (app.lesson.matched)
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(*app.lesson.matched ? palette().active : palette().partial_outline), "%s",
                           (*app.lesson.matched ? "that is what the " + source + " says"
                                                : "not what the " + source + " says: look again, or press R")
                               .c_str());
    else
        ImGui::TextDisabled("R reveals the %s's answer", source.c_str());
}

}  // namespace

float lesson_bar_height(App& app, float width)
{
    if (!playing_lesson(app)) return 0;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float text_w = width - 2 * style.WindowPadding.x;
    float h = 2 * style.WindowPadding.y + 2;
    for (const BarLine& line : bar_lines(app)) h += text_height(line.text, text_w);
    if (answer_row(app)) h += ImGui::GetFrameHeightWithSpacing();
    return std::floor(std::min(h, ImGui::GetIO().DisplaySize.y * 0.35f));
}

void lesson_panel(App& app)
{
    follow_lesson(app);
    if (begin_panel(app, Panel::Lesson, "##lesson", ImGuiWindowFlags_NoTitleBar)) {
        fill_panel(palette().bar_background);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        for (const BarLine& line : bar_lines(app)) wrapped_text(line.colour, line.text);
        if (answer_row(app)) answer_box(app);
        add_region(app, "lesson.text", p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, ImGui::GetCursorScreenPos().y));
    }
    end_panel();
}

}  // namespace warplab::viewer
