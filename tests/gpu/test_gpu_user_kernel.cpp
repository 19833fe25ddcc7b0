// GPU tests (skip, saying why, where no CUDA GPU is present): a user's own
// kernel (`--file`), traced on the GPU from its PTX, records the same
// warp-level events as on the emulator, event for event.
//
// The kernel is tests/cli/kernels/tree_sum.cu, run in place of reduction v3
// (template arguments <256u, T>). At n = 1000 the first pass has 4 blocks and
// a second pass reduces their 4 partial sums, so both GPU paths of the user's
// kernel run: the first launch instrumented (trace_on_gpu), the second as it
// is (launch_on_gpu); a wrong second pass gives a wrong sum. At n = 4096 the
// first pass has 16 blocks. The expected sums are the CPU reference's.
#include <gtest/gtest.h>

#include <set>

#include "gpu_test_helpers.h"
#include "labs/common/traced_run.h"
#include "warplab/ptx/ptx.h"

namespace {

using namespace warplab;
using warplab::test::first_difference;

std::string tree_sum_file() { return std::string(WARPLAB_USER_KERNELS) + "/tree_sum.cu"; }

RunRequest user_request(std::size_t n, const char* type, BackendChoice backend)
{
    RunRequest r;
    r.version = "v3";
    r.n = n;
    r.block = 256;
    r.type = type;
    r.backend = backend;
    r.seed = 11;
    r.file = tree_sum_file();
    r.kernel = "tree_sum";
    return r;
}

class GpuUserKernelEqualsEmulator : public ::testing::TestWithParam<std::tuple<std::string, std::size_t>> {};

TEST_P(GpuUserKernelEqualsEmulator, EventForEvent)
{
    REQUIRE_GPU();
    if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "no GPU trace of --file here: it needs nvcc to compile the file";
    const auto& [type, n] = GetParam();
    const Lab& lab = *find_lab("reduction");
    const TracedRun gpu = trace_version(lab, user_request(n, type.c_str(), BackendChoice::Gpu));
    const TracedRun cpu = trace_version(lab, user_request(n, type.c_str(), BackendChoice::Cpu));
    EXPECT_TRUE(gpu.result.ok) << "gpu sum " << gpu.result.value << " expected " << gpu.result.expected;
    ASSERT_TRUE(cpu.result.ok);
    // Block 0 of tree_sum: the load (step 0), one step per halving (half = 128
    // .. 1: steps 1-8), and thread 0's write of the block's sum (step 9).
    ASSERT_EQ(cpu.block.steps.size(), 10u);
    EXPECT_EQ(gpu.block.steps, cpu.block.steps);
    EXPECT_TRUE(gpu.block.events == cpu.block.events) << first_difference(gpu.block.events, cpu.block.events);
    // The user's kernel ran, not v3's: its memory accesses are on tree_sum.cu's lines
    // 9 (load into partial), 12 (the halving addition) and 15 (the block's sum).
    std::set<std::uint32_t> lines;
    for (const wl::trace::WarpEvent& e : gpu.block.events)
        if (e.space != wl::trace::Space::None) lines.insert(e.site.line);  // memory accesses, not barriers
    EXPECT_EQ(lines, (std::set<std::uint32_t>{9, 12, 15}));
}

INSTANTIATE_TEST_SUITE_P(TreeSum, GpuUserKernelEqualsEmulator,
                         ::testing::Combine(::testing::Values("int", "float"),
                                            ::testing::Values(std::size_t(1000), std::size_t(4096))),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
                         });

}  // namespace
