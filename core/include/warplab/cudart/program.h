// A whole CUDA program built for warplab's CUDA runtime: nvcc compiles the
// program's files unchanged, with -cudart none (NVIDIA's runtime left out; or,
// for the GPU, -cudart shared with warplab's entry points in front of it),
// -lineinfo (faults name the program's lines) and compute_90 PTX in the fat
// binary (what the runtime runs), and links them with the runtime's archives.
// The executable is cached by content: the files, every header they include,
// the options, nvcc's version and the runtime's archives.
#pragma once
#include <string>
#include <vector>

namespace wl::cudart {

struct ProgramOptions {
    std::vector<std::string> sources;   // .cu (or host .cpp) files
    std::vector<std::string> include_dirs;
    std::vector<std::string> defines;   // NAME or NAME=VALUE
    std::string standard;               // "c++17"; empty: nvcc's own default
    std::string cache_dir;              // empty: "programs" beside compile_file's PTX cache
    // The runtime's link list, one file a line, a relative one from the list's
    // own folder (an installed warplab's); empty: the build tree's.
    std::string link_file;
    // NVIDIA's shared runtime (-cudart shared) with warplab's entry points in
    // front of it, so that the program runs on the GPU and its watched launches
    // are traced there (core/src/cudart/gpu_intercept.cpp); link_file is then
    // the list of those archives.
    bool gpu = false;
};

struct Program {
    std::string executable;
    bool reused = false;  // the cache had it
    // nvcc's warnings about the program's files, as it printed them (a cached
    // build keeps them); empty: none. wl::ptx::first_warnings shortens them.
    std::string warnings;
};

// Throws wl::ptx::ToolkitMissing (no nvcc) or wl::ptx::CompileError (nvcc's messages).
Program build_program(const ProgramOptions& options);

}  // namespace wl::cudart
