// Playing a lesson (viewer/model/lesson.h) in the viewer: a slide selects its lab,
// version, settings, step, arrangement and instruction; keys move between
// slides and reveal; a learner's typed answer is checked against the trace.
#pragma once
#include <optional>
#include <string>

#include "viewer/app/app.h"

namespace warplab::viewer {

// Starts playing: presenter mode, the first slide (or `first`, 0-based); the
// slides' programs are run first (run_lesson_programs: throws LessonError).
void start_lesson(App& app, std::shared_ptr<const Lesson> lesson, std::size_t first = 0);
bool playing_lesson(const App& app);
const Slide& current_slide(const App& app);  // only while playing_lesson

// Shows a slide (clamped to the lesson's): its answer hidden, the typed answer cleared.
void show_slide(App& app, std::size_t slide);
void toggle_reveal(App& app);

// A key of a lesson (App::Key's comment): true where it was one, false for the viewer's own.
bool lesson_key(App& app, Key key);

// The shown slide's answer, read from its trace: the number, or why there is none.
struct SlideAnswer {
    std::optional<double> value;
    std::string error;
};
SlideAnswer slide_answer(App& app);

// Where the slide's question states the answer's value (LessonAnswer::value) and the trace gives
// another, or gives none: one line naming the slide; else empty.
std::string answer_disagreement(App& app);

// Checks the learner's typed answer (LessonPlay::typed) against the trace's.
void check_typed_answer(App& app);

// Each frame: selects the slide's instruction once a trace that was on its way arrived.
void follow_lesson(App& app);

// Source lines the slide highlights, in the version's own file.
const std::vector<std::uint32_t>& highlighted_lines(const App& app);

}  // namespace warplab::viewer
