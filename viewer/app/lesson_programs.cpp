#include "viewer/app/lesson_programs.h"

#include <set>

#include "viewer/app/program_view.h"

namespace warplab::viewer {

namespace {

using wl::cudart::LaunchRecord;

LessonError slide_error(std::size_t slide, const std::string& field, const std::string& why)
{
    return LessonError("slide " + std::to_string(slide + 1) + ", '" + field + "': " + why);
}

// The record a slide's launch names, or why there is none.
const LaunchRecord* find_launch(const ProgramLab& p, const Slide& slide, std::string& why)
{
    const auto& launches = p.run.launches;
    if (slide.launch_kernel.empty()) {
        if (slide.launch <= launches.size()) return &launches[slide.launch - 1];
        why = "the program made " + std::to_string(launches.size()) + (launches.size() == 1 ? " launch" : " launches");
        return nullptr;
    }
    unsigned seen = 0;
    std::set<std::string> kernels;
    for (const LaunchRecord& r : launches) {
        kernels.insert(bare_kernel_name(r.kernel));
        if (bare_kernel_name(r.kernel) == slide.launch_kernel && ++seen == slide.launch) return &r;
    }
    std::string names;
    for (const std::string& k : kernels) names += (names.empty() ? "" : ", ") + k;
    why = seen ? "the program launched " + slide.launch_kernel + " " + std::to_string(seen) + (seen == 1 ? " time" : " times")
               : "the program launched no " + slide.launch_kernel + (names.empty() ? "" : " (its kernels: " + names + ")");
    return nullptr;
}

// "block_sum:1": the watch that traces a record, counted as the runtime counts a kernel's launches.
std::string watch_of(const ProgramLab& p, const LaunchRecord& record)
{
    const std::string kernel = bare_kernel_name(record.kernel);
    unsigned n = 0;
    for (const LaunchRecord& r : p.run.launches)
        if (r.index <= record.index && bare_kernel_name(r.kernel) == kernel) ++n;
    return kernel + ":" + std::to_string(n);
}

std::string joined(const std::set<std::string>& watches)
{
    std::string text;
    for (const std::string& w : watches) text += (text.empty() ? "" : ",") + w;
    return text;
}

// Runs one program until every launch its slides name is watched: a first run
// watching the kernels the slides name (or the runtime's default), a second
// where a launch named by its number was not among them.
std::shared_ptr<const ProgramLab> run_for_slides(const Lesson& lesson, const std::string& file, const std::vector<std::size_t>& slides)
{
    std::set<std::string> watches;
    for (std::size_t i : slides)
        if (!lesson.slides[i].launch_kernel.empty()) watches.insert(launch_text(lesson.slides[i]));
    wl::cudart::RunArguments arguments;
    arguments.program.sources = {file};
    for (int pass = 0;; ++pass) {
        arguments.watch = joined(watches);
        auto program = run_program(arguments);
        if (!program->failure.empty()) throw slide_error(slides.front(), "run", file + " did not run: " + failure_line(*program));
        const std::size_t before = watches.size();
        for (std::size_t i : slides) {
            std::string why;
            const LaunchRecord* r = find_launch(*program, lesson.slides[i], why);
            if (!r) throw slide_error(i, "launch", file + ": " + why);
            if (!version_of_launch(*program, r->index)) watches.insert(watch_of(*program, *r));
        }
        if (watches.size() == before || pass == 1) return program;
    }
}

}  // namespace

std::shared_ptr<const LessonPrograms> run_lesson_programs(const Lesson& lesson)
{
    auto programs = std::make_shared<LessonPrograms>();
    programs->version_of_slide.resize(lesson.slides.size());
    std::map<std::string, std::vector<std::size_t>> slides_of;  // each program's slides, in order
    for (std::size_t i = 0; i < lesson.slides.size(); ++i)
        if (!lesson.slides[i].run.empty()) slides_of[lesson.slides[i].run].push_back(i);
    for (const auto& [file, slides] : slides_of) {
        const auto program = run_for_slides(lesson, file, slides);
        for (std::size_t i : slides) {
            std::string why;
            const auto version = version_of_launch(*program, find_launch(*program, lesson.slides[i], why)->index);
            if (!version) throw slide_error(i, "launch", "the program's " + launch_text(lesson.slides[i]) + " was not traced");
            programs->version_of_slide[i] = version;
        }
        programs->by_file.emplace(file, program);
    }
    return programs;
}

}  // namespace warplab::viewer
