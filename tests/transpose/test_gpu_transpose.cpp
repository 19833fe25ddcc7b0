// GPU tests of the transpose lab: each skips, saying why, where no CUDA GPU is
// present.
// 1. The instrumented kernel on the GPU records the same warp-level events as
//    the emulator, event for event, at the trace default (64×64) and at 33×70
//    (partial tiles in both directions): the same seeded floats go in, and a
//    transpose only moves them, so even the values must agree.
// 2. The timing build of every version (what `warplab bench` times) puts
//    every element in its place on awkward shapes and at 8192×8192, the
//    benchmark's size.
#include "transpose_test.h"

namespace warplab::test {
namespace {

#define REQUIRE_GPU()                                                                                     \
    do {                                                                                                  \
        if (!gpu_status().available) GTEST_SKIP() << "no GPU: " << gpu_status().reason;                   \
    } while (0)

RunRequest gpu_request(const std::string& version, std::vector<std::size_t> shape)
{
    RunRequest req = cpu_request(version, std::move(shape), 7);
    req.backend = BackendChoice::Gpu;
    return req;
}

class GpuTranspose : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuTranspose, TraceEqualsTheEmulatorEventForEvent)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{}, std::vector<std::size_t>{33, 70}}) {
        SCOPED_TRACE(shape.empty() ? "trace default" : "33x70");
        const TracedRun gpu = trace_version(transpose_lab(), gpu_request(GetParam(), shape));
        const TracedRun cpu = trace_version(transpose_lab(), cpu_request(GetParam(), shape, 7));
        ASSERT_TRUE(gpu.result.ok) << gpu.result.check;
        ASSERT_TRUE(cpu.result.ok) << cpu.result.check;
        ASSERT_FALSE(cpu.block.events.empty());
        EXPECT_EQ(gpu.block.steps, cpu.block.steps);
        EXPECT_TRUE(gpu.block.events == cpu.block.events) << "the GPU's and the emulator's events differ";
    }
}

TEST_P(GpuTranspose, TimingBuildIsCorrect)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{1, 1}, {100, 1}, {1, 100}, {33, 70}, {3001, 4099},
                                                  {8192, 8192}}) {
        const RunResult r = transpose_lab().check_on_gpu(gpu_request(GetParam(), shape));
        EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
    }
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, GpuTranspose, ::testing::ValuesIn(version_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace warplab::test
