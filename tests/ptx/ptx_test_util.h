// Shared by the PTX interpreter tests: compile a .cu string once per test, skip without nvcc.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "warplab/ptx/ptx.h"

#define WL_SKIP_WITHOUT_NVCC()                                                            \
    do {                                                                                  \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "no nvcc: CUDA toolkit missing"; \
    } while (0)

namespace wl::ptx::testing {

// A PTX module as nvcc begins one (.version, .target, .address_size), then `body`.
inline std::string ptx_module(std::string_view body, std::string_view version = "8.0", std::string_view target = "sm_90")
{
    std::string text = ".version ";
    text.append(version).append("\n.target ").append(target).append("\n.address_size 64\n");
    return text.append(body);
}

inline Module compile_module(const std::string& source, const std::string& name = "test_kernel.cu")
{
    CompiledPtx ptx = compile_source(source, name);
    return Module::parse(ptx.text, ptx.origin);
}

}  // namespace wl::ptx::testing
