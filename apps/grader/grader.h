// The grader: for each exercise, find the student's kernel.cuh, compile it to
// PTX, run the exercise's checks on it in a child process with a time limit
// and turn what they report into checks with points. Front ends: `warplab grade` (apps/grader/grade_command.cpp)
// and CTest (tests/grader), which runs that command.
#pragma once
#include <filesystem>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "build.h"
#include "catalog.h"

namespace wl::grade {

struct CheckResult {
    std::string id, title;
    unsigned points = 0, max_points = 0;
    bool passed = false;
    bool graded = true;  // false: skipped because the result was wrong
    std::string measured, expected, where, hint;
    // A correctness check's cases: how many ran (0: not a list of cases) and those whose result was wrong.
    unsigned cases = 0;
    std::vector<FailedCase> failed_cases;
    std::string cases_not_run;  // "2 more not run: ...", or empty
};

// Kernel time on a GPU against the reference solution (not graded).
struct GpuTiming {
    bool done = false;
    std::string note;  // why not, or what went wrong
    std::string gpu;
    double student_ms = 0, reference_ms = 0;
};

struct ExerciseResult {
    const ExerciseSpec* spec = nullptr;
    std::filesystem::path kernel_file;  // empty when not found
    std::vector<CheckResult> checks;
    std::string problem;  // once for all checks: missing file, compile error, crash, time limit
    double build_seconds = 0, run_seconds = 0;
    bool build_cached = false;
    std::string warnings;  // nvcc's first warnings about the kernel (BuildResult::warnings)
    GpuTiming timing;
    unsigned points() const;
    unsigned max_points() const;
};

struct GradeReport {
    std::filesystem::path dir;
    std::string backend;  // what ran the checks, for the header line
    std::uint64_t seed = 0;  // of this run's random cases
    std::vector<ExerciseResult> exercises;
    unsigned points() const;
    unsigned max_points() const;
};

enum class Backend { Auto, Cpu, Gpu };

struct GradeOptions {
    std::vector<const ExerciseSpec*> exercises;  // empty: all
    std::filesystem::path dir;                   // holds one folder per exercise
    Backend backend = Backend::Auto;
    std::optional<double> time_limit_s;          // overrides each exercise's
    std::uint64_t seed = 0;                      // of the random cases; pick_seed() when none is given
    unsigned warp_width = 32;                    // lanes a warp on the emulator; 64: no GPU timing (NVIDIA's are 32)
};

// A seed that differs from run to run (so that no answer can be memorised).
std::uint64_t pick_seed();

// The folder of exercise `spec` under `dir`: its catalog name, or the
// shallowest folder named "<id>" or "<id>_..." up to 4 levels down (one in
// an exercises/ folder first: a zipped repository also has solutions/); else,
// with `lone_kernel` (one exercise graded), the folder of the one kernel.cuh
// in the upload. Empty when there is none.
std::filesystem::path find_exercise_folder(const std::filesystem::path& dir, const ExerciseSpec& spec,
                                           bool lone_kernel = false);
// The files under `dir` (4 folders deep), by relative path, `most` of them named.
std::string uploaded_files(const std::filesystem::path& dir, std::size_t most);

// What runs the checks, and whether (and where) kernels are also timed on a GPU.
std::string describe_backend(const GradeOptions& opt, const Toolchain& tc);

// Grades each exercise in turn; calls on_done after each (to print as it goes).
GradeReport grade(const GradeOptions& opt, const Toolchain& tc,
                  const std::function<void(const ExerciseResult&)>& on_done = {});

// Turns the checks' result lines and how their run ended into checks (exposed for tests).
void collect_checks(ExerciseResult& ex, const std::string& result_lines, const std::string& end_problem);

}  // namespace wl::grade
