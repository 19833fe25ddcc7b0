// GPU tests of the image lab: each skips, saying why, where no CUDA GPU is present.
// 1. The instrumented first pass on the GPU records the same warp-level
//    events as the emulator, event for event, at the trace default (320×180)
//    and at 37×23 (partial groups both ways): the same seeded pixels go in;
//    a single-pass version at one whole group instead of the default.
//    v3-wave64 is left out: on 32-wide warps its tail races.
// 2. The timing build of every such version (what `warplab bench` times)
//    gives the CPU's mean and every partial at 1×1, 37×23, 1920×1080 (the
//    benchmark's picture) and 4099×3001 (no group divides it).
#include "image_test.h"
#include "labs/common/version.h"
#include "labs/image/versions.h"
#include "tests/gpu/gpu_test_helpers.h"

namespace warplab::test {
namespace {

class GpuImage : public ::testing::TestWithParam<std::string> {};

// A single-pass version's last group to finish sums every partial: with more
// than one group, which one that is changes from run to run (on the GPU, the
// watched group 0 is sometimes last), and with it the watched group's trace.
// Such a version is compared where its grid is one group: 128×64 (v7's tile,
// whole) and 37×23 (partial both ways).
bool single_pass(const std::string& id)
{
    return for_each_version<image::Versions>([&](auto v) {
        using V = decltype(v);
        if constexpr (requires { V::single_pass; }) return id == V::meta.id;
        return false;
    });
}

TEST_P(GpuImage, TraceEqualsTheEmulatorEventForEvent)
{
    REQUIRE_GPU();
    const std::vector<std::size_t> first = single_pass(GetParam()) ? std::vector<std::size_t>{128, 64} : std::vector<std::size_t>{};
    for (const std::vector<std::size_t>& size : {first, std::vector<std::size_t>{37, 23}}) {
        SCOPED_TRACE(size.empty() ? "trace default" : std::to_string(size[0]) + "x" + std::to_string(size[1]));
        expect_gpu_trace_equals_emulator(image_lab(), cpu_request(GetParam(), size, 7));
    }
}

TEST_P(GpuImage, TimingBuildIsCorrect)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& size : {std::vector<std::size_t>{1, 1}, {37, 23}, {1920, 1080}, {4099, 3001}})
        expect_timing_build_correct(image_lab(), cpu_request(GetParam(), size, 7));
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, GpuImage, ::testing::ValuesIn(nvidia_version_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace warplab::test
