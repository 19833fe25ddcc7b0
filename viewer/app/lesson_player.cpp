#include "viewer/app/lesson_player.h"

#include <algorithm>

#include "viewer/app/lesson_programs.h"
#include "viewer/app/program_view.h"
#include "viewer/model/step_model.h"
#include "viewer/model/timing_model.h"
#include "warplab/emu/emulator.h"

namespace warplab::viewer {

namespace {

// The step's instruction at a line in one memory space: the costliest of them, as a panel opens on the step's worst
// (the line's atomic, if it has one: line_atomic).
std::optional<std::size_t> event_at_line(const BlockTrace& block, std::uint32_t step, std::uint32_t line, wl::trace::Space space)
{
    std::optional<std::size_t> best;
    double best_cost = -1;
    for (std::size_t i : memory_events(block, step, space)) {
        if (block.events[i].site.line != line) continue;
        const double cost = space == wl::trace::Space::Shared ? bank_view(block.events[i]).cost.ways()
                                                              : double(sector_view(block.events[i]).cost.sectors);
        if (cost > best_cost) best = i, best_cost = cost;
    }
    if (!best) return best;
    return line_atomic(block, step, *best);
}

// The slide's instruction in the banks and global panels, once its trace is here (in a browser it arrives later).
void select_instruction(App& app)
{
    const Slide& slide = current_slide(app);
    const TracedRun* run = slide.select ? current_run(app) : nullptr;
    if (!run) return;
    if (auto e = event_at_line(run->block, app.sel.step, *slide.select, wl::trace::Space::Shared)) app.focus.shared_event = e;
    if (auto e = event_at_line(run->block, app.sel.step, *slide.select, wl::trace::Space::Global)) app.focus.global_event = e;
}

// A run slide's program in place of the labs (kept while slides show it), its launch selected.
void show_launch(App& app, const Slide& slide)
{
    const LessonPrograms& programs = *app.lesson.programs;
    const auto& program = programs.by_file.at(slide.run);
    if (app.program != program) show_program(app, program);
    select_version(app, programs.version_of_slide.at(app.lesson.slide).value());
}

// The slide's source on screen: its lab and version, and a file's kernel as
// one more version of the lab (add_user_kernel), kept while slides show it;
// or a program's launch.
void show_source(App& app, const Slide& slide)
{
    if (!slide.run.empty()) return show_launch(app, slide);
    close_program(app);
    const Lab* lab = find_lab(slide.lab);  // parse_lesson checked the names
    const std::size_t lab_index = std::size_t(lab - all_labs().data());
    if (lab_index != app.sel.lab) select_lab(app, lab_index);
    app.sel.version = std::size_t(find_version(*lab, slide.version) - lab->versions.data());
    const bool kept = app.user_lab && app.user_lab->lab.id == slide.lab && app.user_lab->file == slide.file &&
                      app.user_lab->kernel == slide.kernel && app.user_lab->as_version == slide.version;
    if (kept) {
        app.sel.version = current_lab(app).versions.size() - 1;  // the file's kernel, the lab's last
    } else {
        app.user_lab.reset();  // the version selected is the lab's own
        if (!slide.file.empty()) add_user_kernel(app, slide.file, slide.kernel);
    }
}

// A recorded metric's answer, from the table the time panel shows for the slide's lab.
SlideAnswer recorded_answer(App& app, const Slide& slide)
{
    const int shown = default_table(app.timing, slide.lab, element_type(app));
    if (shown < 0) return {std::nullopt, "no recorded times of lab " + slide.lab + " in results/"};
    try {
        return {recorded_value(app.timing.tables[shown].table, all_labs()[app.sel.lab], slide.version, slide.question->answer.metric), ""};
    } catch (const LessonError& e) {
        return {std::nullopt, e.what()};
    }
}

}  // namespace

void start_lesson(App& app, std::shared_ptr<const Lesson> lesson, std::size_t first)
{
    app.lesson = {};
    app.lesson.programs = run_lesson_programs(*lesson);
    app.lesson.lesson = std::move(lesson);
    app.presenter = true;
    show_slide(app, first);
}

bool playing_lesson(const App& app) { return app.lesson.lesson != nullptr; }

const Slide& current_slide(const App& app) { return app.lesson.lesson->slides.at(app.lesson.slide); }

void show_slide(App& app, std::size_t index)
{
    const Lesson& lesson = *app.lesson.lesson;
    app.lesson.slide = std::min(index, lesson.slides.size() - 1);
    app.lesson.revealed = false;
    app.lesson.typed.clear();
    app.lesson.matched.reset();
    const Slide& slide = current_slide(app);
    show_source(app, slide);
    app.sel.setting = slide.setting;
    Selection settings = app.sel;
    settings.schedule = wl::emu::parse_schedule(slide.schedule).value_or(wl::emu::Schedule::Independent);
    settings.warp_width = slide.warp_size;
    select_settings(app, settings);  // runs (or starts) the slide's trace
    set_step(app, slide.step);
    select_instruction(app);
    const auto names = arrangements(lab_panel(current_lab(app).panel));
    const auto shown = std::find(names.begin(), names.end(), slide.arrangement);
    app.view = shown == names.end() ? 0 : int(shown - names.begin());
    app.compare_widths = slide.compare_widths;
    app.compare_versions = !slide.compare.empty();
    app.compared_with = slide.compare;
    app.compared_lab = slide.lab;
    app.lesson.select_pending = slide.select && !current_run(app);
}

void toggle_reveal(App& app)
{
    if (playing_lesson(app)) app.lesson.revealed = !app.lesson.revealed;
}

bool lesson_key(App& app, Key key)
{
    if (!playing_lesson(app)) return false;
    switch (key) {
    case Key::PageDown:
    case Key::Right: show_slide(app, app.lesson.slide + 1); return true;
    case Key::PageUp:
    case Key::Left:
        if (app.lesson.slide > 0) show_slide(app, app.lesson.slide - 1);
        return true;
    case Key::R:
    case Key::B:
    case Key::Period: toggle_reveal(app); return true;
    default: return false;
    }
}

SlideAnswer slide_answer(App& app)
{
    const Slide& slide = current_slide(app);
    if (!slide.question) return {std::nullopt, "this slide asks nothing"};
    if (recorded_metric(slide.question->answer.metric)) return recorded_answer(app, slide);
    const TraceSlot& trace = current_trace(app);
    if (trace.pending) return {std::nullopt, "the trace is still running"};
    if (!trace.run) return {std::nullopt, "the trace failed: " + trace.error};
    try {
        return {answer_value(*trace.run, slide.question->answer, slide.step), ""};
    } catch (const LessonError& e) {
        return {std::nullopt, e.what()};
    }
}

std::string answer_disagreement(App& app)
{
    const Slide& slide = current_slide(app);
    if (!slide.question) return {};
    const std::string where = "slide " + std::to_string(app.lesson.slide + 1) + ", 'question.answer'";
    const SlideAnswer answer = slide_answer(app);
    if (!answer.value) return where + ": " + answer.error;
    const auto stated = slide.question->answer.value;
    if (stated && answer_text(*stated) != answer_text(*answer.value))
        return where + ": the lesson says " + answer_text(*stated) + ", the trace gives " + answer_text(*answer.value);
    return {};
}

void check_typed_answer(App& app)
{
    const SlideAnswer answer = slide_answer(app);
    if (answer.value) app.lesson.matched = answer_matches(app.lesson.typed, *answer.value);
}

const std::vector<std::uint32_t>& highlighted_lines(const App& app)
{
    static const std::vector<std::uint32_t> none;
    return playing_lesson(app) ? current_slide(app).highlight : none;
}

void follow_lesson(App& app)
{
    if (!playing_lesson(app) || !app.lesson.select_pending || !current_run(app)) return;
    app.lesson.select_pending = false;
    select_instruction(app);
}

}  // namespace warplab::viewer
