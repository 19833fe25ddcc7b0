// Compiles a student's kernel.cuh to PTX: a generated .cu includes it and
// instantiates the kernels the checks launch (the exercise's `calls`), and
// wl::ptx::compile_source runs nvcc -ptx -lineinfo on it, in the grader's own
// cache folder (never the student's). The PTX lands in a file that the
// grader's child process (the checks) reads.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "catalog.h"

namespace wl::grade {

// What grading needs on this machine, found when it runs (nothing is fixed at
// configure time, so the grader runs from wherever it is installed).
struct Toolchain {
    std::string nvcc;                   // wl::ptx::find_nvcc(); empty: none
    std::filesystem::path self;         // this warplab binary: it runs the checks as a child process
    std::filesystem::path data_dir;     // warplab's data (labs/common/data_dir.h), if it holds the grader's sources
    std::filesystem::path cache_dir;    // where PTX and GPU timing builds go
    double compile_limit_s = 300;
};
Toolchain default_toolchain();

// The one line said when there is no nvcc.
inline constexpr const char* kNeedsToolkit =
    "grading needs the CUDA toolkit (nvcc) to compile your kernel; none found";

// The cache folder: $WARPLAB_GRADE_CACHE, else $XDG_CACHE_HOME/warplab/grade
// (or ~/.cache/warplab/grade), else the temp folder. Created.
std::filesystem::path usable_cache_dir();

struct BuildResult {
    bool ok = false;
    std::filesystem::path binary;  // when ok: the PTX file (or, for GPU timing, the program)
    std::string errors;            // when not: the compiler's first error lines
    std::string warnings;          // when ok: nvcc's first warnings, with the lines they quote (wl::ptx::first_warnings)
    bool cached = false;
    double seconds = 0;
};

// The generated .cu for an exercise (exposed for tests).
std::string grader_source(const ExerciseSpec& spec, const std::filesystem::path& kernel_file);

// nvcc -ptx of the student's kernel with the exercise's calls. Throws
// std::runtime_error(kNeedsToolkit) when there is no nvcc.
BuildResult compile_to_ptx(const Toolchain& tc, const ExerciseSpec& spec, const std::filesystem::path& kernel_file);

// A whole-program exercise's program.cu, built by wl::cudart::build_program
// for warplab's CUDA runtime (cached by content in the grader's cache folder);
// binary is the executable. Throws std::runtime_error(kNeedsToolkit) when there is no nvcc.
BuildResult build_student_program(const Toolchain& tc, const std::filesystem::path& program_file);

// The GPU timing program (exercises/gpu/En.cuh, nvcc's plain build for this
// machine's GPU); needs the grader's sources in warplab's data.
BuildResult build_gpu_timing(const Toolchain& tc, const ExerciseSpec& spec, const std::filesystem::path& kernel_file);

}  // namespace wl::grade
