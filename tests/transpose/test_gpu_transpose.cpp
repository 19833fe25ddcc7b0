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
#include "tests/gpu/gpu_test_helpers.h"

namespace warplab::test {
namespace {

class GpuTranspose : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuTranspose, TraceEqualsTheEmulatorEventForEvent)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{}, std::vector<std::size_t>{33, 70}}) {
        SCOPED_TRACE(shape.empty() ? "trace default" : "33x70");
        expect_gpu_trace_equals_emulator(transpose_lab(), cpu_request(GetParam(), shape, 7));
    }
}

TEST_P(GpuTranspose, TimingBuildIsCorrect)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{1, 1}, {100, 1}, {1, 100}, {33, 70}, {3001, 4099},
                                                  {8192, 8192}})
        expect_timing_build_correct(transpose_lab(), cpu_request(GetParam(), shape, 7));
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, GpuTranspose, ::testing::ValuesIn(version_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace warplab::test
