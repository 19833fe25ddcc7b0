// GPU tests of the image lab: each skips, saying why, where no CUDA GPU is present.
// 1. The instrumented first pass on the GPU records the same warp-level
//    events as the emulator, event for event, at the trace default (320×180)
//    and at 37×23 (partial groups both ways): the same seeded pixels go in.
//    v3-wave64 is left out: on 32-wide warps its tail races.
// 2. The timing build of every such version (what `warplab bench` times)
//    gives the CPU's mean and every partial at 1×1, 37×23, 1920×1080 (the
//    benchmark's picture) and 4099×3001 (no group divides it).
#include "image_test.h"
#include "labs/common/traced_run.h"

namespace warplab::test {
namespace {

#define REQUIRE_GPU()                                                                   \
    do {                                                                                \
        if (!gpu_status().available) GTEST_SKIP() << "no GPU: " << gpu_status().reason; \
    } while (0)

RunRequest gpu_request(const std::string& version, std::vector<std::size_t> size)
{
    RunRequest req = cpu_request(version, std::move(size), 7);
    req.backend = BackendChoice::Gpu;
    return req;
}

class GpuImage : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuImage, TraceEqualsTheEmulatorEventForEvent)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& size : {std::vector<std::size_t>{}, std::vector<std::size_t>{37, 23}}) {
        SCOPED_TRACE(size.empty() ? "trace default" : "37x23");
        const TracedRun gpu = trace_version(image_lab(), gpu_request(GetParam(), size));
        const TracedRun cpu = trace_version(image_lab(), cpu_request(GetParam(), size, 7));
        ASSERT_TRUE(gpu.result.ok) << gpu.result.check;
        ASSERT_TRUE(cpu.result.ok) << cpu.result.check;
        ASSERT_FALSE(cpu.block.events.empty());
        EXPECT_EQ(gpu.block.steps, cpu.block.steps);
        EXPECT_TRUE(gpu.block.events == cpu.block.events) << "the GPU's and the emulator's events differ";
    }
}

TEST_P(GpuImage, TimingBuildIsCorrect)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& size : {std::vector<std::size_t>{1, 1}, {37, 23}, {1920, 1080}, {4099, 3001}}) {
        const RunResult r = image_lab().check_on_gpu(gpu_request(GetParam(), size));
        EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
    }
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, GpuImage, ::testing::ValuesIn(nvidia_version_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace warplab::test
