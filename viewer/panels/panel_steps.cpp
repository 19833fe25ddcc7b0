// Step controls: first, previous, play/pause, next, last; the speed of play;
// a slider over the steps; what the step is.
#include <imgui.h>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

std::string step_description(App& app)
{
    const TracedRun* run = current_run(app);
    if (!run || run->steps.empty()) return "";
    const auto& m = run->steps[app.sel.step];
    std::string end = m.has_barrier_end ? "ends at __syncthreads()" : m.collectives ? "a warp-level round" : "the last step";
    return printf_string("lines %s · %s", lines_text(m.lines).c_str(), end.c_str());
}

void buttons(App& app, std::uint32_t steps)
{
    const long step = long(app.sel.step);
    ImGui::BeginDisabled(steps == 0);
    if (ImGui::Button("|<")) set_step(app, 0);
    ImGui::SameLine(0, 4);
    if (ImGui::Button(" < ")) set_step(app, step - 1);
    ImGui::SameLine(0, 4);
    if (ImGui::Button(app.play.playing ? "Pause" : " Play ", ImVec2(ImGui::GetFontSize() * 4, 0))) toggle_play(app);
    ImGui::SameLine(0, 4);
    if (ImGui::Button(" > ")) set_step(app, step + 1);
    ImGui::SameLine(0, 4);
    if (ImGui::Button(">|")) set_step(app, long(steps) - 1);
    ImGui::EndDisabled();
}

}  // namespace

void steps_panel(App& app)
{
    if (begin_panel(app, Panel::Steps, "##steps", ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar)) {
        const std::uint32_t steps = step_count(app);
        buttons(app, steps);
        ImGui::SameLine(0, ImGui::GetFontSize());
        if (steps)
            ImGui::Text("step %u of 0-%u", app.sel.step, steps - 1);
        else
            ImGui::TextDisabled("no steps");
        ImGui::SameLine(0, ImGui::GetFontSize() * 2);
        // The value beside the slider, not inside it where the grab covers it.
        const float speed_w = ImGui::GetFontSize() * 6;
        const std::string speed = printf_string("speed %.2g steps/s", app.play.steps_per_second);
        wrap_unless_fits(ImGui::CalcTextSize(speed.c_str()).x + ImGui::GetStyle().ItemSpacing.x + speed_w);
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(speed.c_str());
        ImGui::SameLine();
        ImGui::SetNextItemWidth(speed_w);
        ImGui::SliderFloat("##speed", &app.play.steps_per_second, 0.25f, 6.0f, "");
        help_marker("A step is one stage of the algorithm as you would draw it: the code between two "
                    "__syncthreads() of the block, or, in a warp-level tail, one __syncwarp() or shuffle round.");

        int s = int(app.sel.step);
        ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
        ImGui::BeginDisabled(steps < 2);
        if (ImGui::SliderInt("##step", &s, 0, steps ? int(steps) - 1 : 0, "")) set_step(app, s);  // the step is told above
        ImGui::EndDisabled();
        wrapped_text_after(palette().muted, step_description(app));
        app.steps_content_h = ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y - ImGui::GetStyle().WindowPadding.y;
    }
    end_panel();
}

}  // namespace warplab::viewer
