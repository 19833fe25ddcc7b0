// A lesson: a teacher's sequence of slides played on live traces
// (warplab-viewer --lesson FILE; lessons/ ships one per lab). A slide names
// what to show and says a caption; it may ask a question whose answer is read
// from the trace, shown when revealed. The format is JSON:
//
//   { "title": "...", "source": "Author, \"Title\"",      source: optional, the deck it follows
//     "slides": [ {
//       "lab": "reduction", "version": "v2",               the first slide names both; later ones
//                                                         default to the slide before's
//       "file": "mine.cu", "kernel": "reduce",             optional: a .cu file's kernel (a student's,
//                                                         a teacher's: the viewer's --file) in the
//                                                         version's launch; relative to the lesson's
//                                                         folder; kernel: where the file has several
//       "run": "prog.cu", "launch": 2,                     optional, in place of version and file: a launch of a
//                                                         whole program (warplab run's), relative to the lesson's
//                                                         folder; launch: N (the program's N-th launch) or
//                                                         "kernel[:n]" (the kernel's n-th, as --watch reads it),
//                                                         default 1; "lab" then names compare's lab only; a
//                                                         slide with "launch" alone shows the slide before's program
//       "compare": "v3",                                   optional: the steps beside this version's (D)
//       "step": 3,                                         default 0
//       "arrangement": "memory",                           a compact window's view (layout.h); default: the first
//       "highlight": [33, 34],                             source lines to mark
//       "select": 33,                                      the line whose instruction the banks and global panels show
//       "schedule": "lockstep", "warp_size": 64,           optional: the emulator's lane schedule, lanes a warp
//       "setting": 5,                                      optional: the version's setting (coalescing's offset or stride)
//       "compare_widths": true,                            optional: threads at warp widths 32 and 64 side by side
//       "caption": "...",
//       "question": {                                      optional
//         "id": "v2-worst",                                optional: how a walkthrough quotes it
//         "text": "...",
//         "answer": { "metric": "worst", "step": 3, "line": 33, "value": 8 },
//         "explanation": "..." } } ] }                     optional: shown with the answer
//
// The answer's metric is read from the slide's trace, or from the lab's
// recorded times (lesson_metrics lists them); "step" defaults to the slide's, "line" keeps the step's accesses at
// that line only, and "value" is what the author expects the trace to give:
// the tour and the tests check it.
//
// What a slide shows is its source: lab, version and file, or run and launch (parse_source reads
// them, show_source in lesson_player.cpp shows them, source_lines_file names
// the file whose lines a slide's line numbers count). A slide that names none
// of the source's fields shows the slide before's source.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warplab/trace/block_analysis.h"

namespace warplab {
struct BenchTable;  // labs/common/bench.h
struct Lab;         // labs/common/lab.h
}  // namespace warplab

namespace warplab::viewer {

struct LessonAnswer {
    std::string metric;                  // one of lesson_metrics()
    std::optional<std::uint32_t> step;   // unset: the slide's
    std::optional<std::uint32_t> line;   // only the step's accesses at this source line
    std::optional<double> value;         // what the author expects the trace to give
};

struct LessonQuestion {
    std::string id, text, explanation;
    LessonAnswer answer;
};

struct Slide {
    std::string lab, version;
    std::string file;    // a .cu file whose kernel is shown in the version's launch (resolved); empty: the version's own
    std::string kernel;  // with file: the kernel's name, as the file declares it
    std::string run;             // a whole program's .cu file (resolved), whose launch is shown in place of a version; empty: none
    std::string launch_kernel;   // with run: the launch is this kernel's launch-th; empty: the program's launch-th
    unsigned launch = 1;         // with run: from 1
    std::string compare;  // a version of the lab whose steps are shown beside (D); empty: none
    std::uint32_t step = 0;
    std::string arrangement;              // empty: the first
    std::vector<std::uint32_t> highlight;
    std::optional<std::uint32_t> select;
    std::string schedule = "independent";
    unsigned warp_size = 32;
    int setting = -1;                     // RunRequest::setting; -1: the version's default
    bool compare_widths = false;
    std::string caption;
    std::optional<LessonQuestion> question;
};

struct Lesson {
    std::string title, source;
    std::vector<Slide> slides;
};

// A lesson that cannot be played, in one line: where ("slide 3, 'version'") and why.
class LessonError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The metrics an answer may read, each with what it counts: most from the
// slide's trace, some from the lab's recorded times (results/), which a lab
// of host programs (transfers) asks of, having no trace.
struct LessonMetric {
    const char* name;
    const char* what;
    bool recorded = false;  // read from the recording, not from a trace
};
const std::vector<LessonMetric>& lesson_metrics();
bool recorded_metric(const std::string& metric);

// Checks every field against the labs (lab, version, setting, arrangement) and
// the version's source (lines); throws LessonError.
// A slide's relative "file" is found in `folder` (empty: the working directory).
Lesson parse_lesson(const nlohmann::json& document, const std::filesystem::path& folder = {});
// Reads and parses a file: FILE as given, or a shipped lesson's name
// ("reduction": lessons/reduction.json in warplab's data); the error names the file.
Lesson load_lesson(const std::string& file);
std::filesystem::path lesson_path(const std::string& file);
// The file whose lines a slide's "highlight", "select" and "line" count: its "file" or "run", else its version's.
std::string source_lines_file(const Slide& slide);
// A run slide's launch as the launch table and warplab run's --watch name it: "launch 2", "reduce_pass:2".
std::string launch_text(const Slide& slide);
// The shipped lessons' names (lessons/ in warplab's data), sorted.
std::vector<std::string> shipped_lessons();

// An answer's number read from a trace; the slide's step where the answer
// names none. Throws LessonError where the trace has no such step or the step
// no access at the line.
double answer_value(const wl::trace::BlockAnalysis& run, const LessonAnswer& answer, std::uint32_t slide_step);
// A recorded metric's number: the version's row of the lab's recorded table
// (the fastest of its settings' rows). Throws LessonError where the table has
// no row of the version, or not that number.
double recorded_value(const BenchTable& table, const Lab& lab, const std::string& version, const std::string& metric);
// As the viewer and the handout show it: "8", "18.5" (one decimal where not whole).
std::string answer_text(double value);
// Whether a learner's typed answer says the number ("8", "8-way", " 8.0 ").
bool answer_matches(const std::string& typed, double value);

struct LessonPrograms;  // viewer/app/lesson_programs.h

// Where a lesson is played: the slide shown, whether its answer is revealed,
// the learner's typed answer and whether it was checked.
struct LessonPlay {
    std::shared_ptr<const Lesson> lesson;
    std::shared_ptr<const LessonPrograms> programs;  // its slides' programs, run
    std::size_t slide = 0;
    bool revealed = false;
    std::string typed;
    std::optional<bool> matched;  // set by Check: the typed answer against the trace's
    bool select_pending = false;  // the slide selects an instruction of a trace still on its way (a browser's)
};

}  // namespace warplab::viewer
