// Shared by the gpu-labelled tests: skipping where there is no GPU, and a
// readable account of where a GPU trace and an emulator trace part ways.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "warplab/trace/events.h"

// A macro, not a function: GTEST_SKIP() returns only from the function it is written in.
#define REQUIRE_GPU()                                                                                          \
    do {                                                                                                       \
        if (!warplab::gpu_status().available) GTEST_SKIP() << "no GPU: " << warplab::gpu_status().reason;      \
    } while (0)

namespace warplab::test {

inline std::string first_difference(const std::vector<wl::trace::WarpEvent>& gpu,
                                    const std::vector<wl::trace::WarpEvent>& cpu)
{
    for (std::size_t i = 0; i < std::min(gpu.size(), cpu.size()); ++i) {
        const auto& g = gpu[i];
        const auto& c = cpu[i];
        if (g == c) continue;
        return "event " + std::to_string(i) + ": gpu step " + std::to_string(g.step) + " warp " + std::to_string(g.warp) +
               " line " + std::to_string(g.site.line) + " mask " + std::to_string(g.mask) + " vs cpu step " +
               std::to_string(c.step) + " warp " + std::to_string(c.warp) + " line " + std::to_string(c.site.line) +
               " mask " + std::to_string(c.mask);
    }
    return "event counts differ: gpu " + std::to_string(gpu.size()) + ", cpu " + std::to_string(cpu.size());
}

}  // namespace warplab::test
