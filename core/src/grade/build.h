// Builds an exercise's harness from a student's kernel.cuh: a generated source
// that includes the kernel and the exercise's checks, compiled with the host
// compiler of this build into the grader's own cache folder (never the
// student's). Builds are keyed by the content of everything they read.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "catalog.h"

namespace wl::grade {

// How this build of warplab compiles harnesses (fixed at configure time).
struct Toolchain {
    std::string cxx, cxx_id;                  // compiler path, CMake's compiler id ("GNU", "Clang")
    std::string nvcc;                         // this build's CUDA compiler, if it has one
    std::filesystem::path source_dir;         // the repository
    std::vector<std::string> libs;            // static libraries a harness links, in link order
    std::filesystem::path cache_dir;          // where harnesses are built
    double compile_limit_s = 300;
};
Toolchain default_toolchain();

// The cache folder: $WARPLAB_GRADE_CACHE, else this build's grade-cache/, else
// $XDG_CACHE_HOME/warplab/grade (or ~/.cache/...), else the temp folder. Created.
std::filesystem::path usable_cache_dir(const Toolchain& tc);

struct BuildResult {
    bool ok = false;
    std::filesystem::path binary;  // when ok
    std::string errors;            // when not: the compiler's first error lines
    bool cached = false;
    double seconds = 0;
};

// Emulator: the checks, host compiler, -DWARPLAB_EMULATOR. Gpu: the timing
// harness (exercises/gpu/En.cuh), nvcc, the plain build, for this machine's GPU.
enum class Flavour { Emulator, Gpu };

BuildResult build_harness(const Toolchain& tc, const ExerciseSpec& spec, const std::filesystem::path& kernel_file,
                          Flavour flavour = Flavour::Emulator);

}  // namespace wl::grade
