// Timing on a GPU, where there is one: the student's kernel and the reference
// solution's, each built with nvcc in its plain (timing) build. Not graded.
#pragma once
#include <filesystem>
#include <string>

#include "build.h"
#include "grader.h"

namespace wl::grade {

// Empty when kernels can be timed here; else why not (no nvcc, no GPU).
std::string why_no_gpu_timing(const Toolchain& tc);

// Builds the student's kernel and the reference solution's with nvcc and
// times both (the exercise's exercises/gpu/En.cuh). t.note says why not.
GpuTiming time_on_gpu(const Toolchain& tc, const ExerciseSpec& spec, const std::filesystem::path& kernel_file);

}  // namespace wl::grade
