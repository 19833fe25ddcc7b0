// Shared by the gpu-labelled tests: skipping where there is no GPU, and a
// readable account of where a GPU trace and an emulator trace part ways.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "labs/common/traced_run.h"
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

// One version's instrumented run on the GPU against the emulator's, for the
// same request (sizes, seed, block) but the backend: the same steps and the
// same warp events, one by one.
inline void expect_gpu_trace_equals_emulator(const Lab& lab, RunRequest req)
{
    req.backend = BackendChoice::Gpu;
    const TracedRun gpu = trace_version(lab, req);
    req.backend = BackendChoice::Cpu;
    const TracedRun cpu = trace_version(lab, req);
    ASSERT_TRUE(gpu.result.ok) << gpu.result.check;
    ASSERT_TRUE(cpu.result.ok) << cpu.result.check;
    ASSERT_FALSE(cpu.block.events.empty());
    EXPECT_EQ(gpu.block.steps, cpu.block.steps);
    EXPECT_TRUE(gpu.block.events == cpu.block.events) << first_difference(gpu.block.events, cpu.block.events);
}

// The timing build of one version (what `warplab bench` times) checked
// against the CPU's answer for the request.
inline void expect_timing_build_correct(const Lab& lab, RunRequest req)
{
    req.backend = BackendChoice::Gpu;
    const RunResult r = lab.check_on_gpu(req);
    EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
}

}  // namespace warplab::test
