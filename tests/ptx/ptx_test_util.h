// Shared by the PTX interpreter tests: compile a .cu string once per test, skip without nvcc.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "warplab/ptx/ptx.h"

#define WL_SKIP_WITHOUT_NVCC()                                                            \
    do {                                                                                  \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "no nvcc: CUDA toolkit missing"; \
    } while (0)

namespace wl::ptx::testing {

inline Module compile_module(const std::string& source, const std::string& name = "test_kernel.cu")
{
    CompiledPtx ptx = compile_source(source, name);
    return Module::parse(ptx.text, ptx.origin);
}

}  // namespace wl::ptx::testing
