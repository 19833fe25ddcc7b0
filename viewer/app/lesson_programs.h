// A lesson's whole programs (slides' "run", viewer/model/lesson.h): each built and
// run once on the emulator, as the viewer's --run runs one, watching every
// launch its slides name; each slide's launch found among the program's.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "viewer/model/lesson.h"

namespace warplab::viewer {

struct ProgramLab;  // viewer/app/program_view.h

struct LessonPrograms {
    std::map<std::string, std::shared_ptr<const ProgramLab>> by_file;  // Slide::run
    std::vector<std::optional<std::size_t>> version_of_slide;         // the program lab's version a run slide shows
};

// Throws LessonError naming the slide and the field: a program that does not
// build or run ('run'), a launch it did not make ('launch'). A lesson without
// programs runs nothing.
std::shared_ptr<const LessonPrograms> run_lesson_programs(const Lesson& lesson);

}  // namespace warplab::viewer
