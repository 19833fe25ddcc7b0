// Plain-CUDA test kernels on the PTX path: each .cu of the project compiled
// by nvcc and parsed once per test binary (nvcc's output is cached on disk as
// well), and a skip with the reason where there is no nvcc.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "warplab/ptx/ptx.h"

#ifndef WARPLAB_SOURCE_DIR
#error "the tests that compile CUDA need WARPLAB_SOURCE_DIR, the project's root"
#endif

// Skips the calling test (or fixture SetUp) where this machine has no nvcc.
#define WL_SKIP_WITHOUT_NVCC()                                                                  \
    do {                                                                                        \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc (the CUDA toolkit)";      \
    } while (0)

namespace warplab::test {

// The absolute path of a file given relative to the project root ("tests/corpus/scan_in_place.cu").
inline std::string project_file(const std::string& relative) { return std::string(WARPLAB_SOURCE_DIR) + "/" + relative; }

// What compile options every test uses: paths in the PTX and in fault
// reports read relative to the project root, as a user sees them.
inline wl::ptx::CompileOptions project_options()
{
    wl::ptx::CompileOptions opt;
    opt.strip_prefix = std::string(WARPLAB_SOURCE_DIR) + "/";
    return opt;
}

// The parsed module of a project .cu file, compiled on first use.
inline const wl::ptx::Module& module_of(const std::string& relative)
{
    static std::map<std::string, std::unique_ptr<wl::ptx::Module>> modules;
    std::unique_ptr<wl::ptx::Module>& slot = modules[relative];
    if (!slot) {
        const wl::ptx::CompiledPtx ptx = wl::ptx::compile_file(project_file(relative), project_options());
        slot = std::make_unique<wl::ptx::Module>(wl::ptx::Module::parse(ptx.text, ptx.origin));
    }
    return *slot;
}

}  // namespace warplab::test
