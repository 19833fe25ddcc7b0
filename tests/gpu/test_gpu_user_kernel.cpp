// GPU tests (skip, saying why, where no CUDA GPU is present): a user's own
// kernel (`--file`), traced on the GPU from its PTX, records the same
// warp-level events as on the emulator, event for event.
//
// The kernels are tests/cli/kernels/'s, run in place of reduction v3
// (template arguments <256u, T>): tree_sum.cu (the lab's own style),
// harris_style.cu's reduce_halves (Harris's kernel 3 over `extern __shared__
// int sdata[]`, given 256 × 4 bytes as his host code gives) and
// sample_style.cu's reduce2<class T> (the file's explicit instantiation for
// int, instantiated by warplab for float; dynamic shared memory through a
// typed helper). At n = 1000 the first pass has 4 blocks and a second pass
// reduces their 4 partial sums, so both GPU paths of the user's kernel run:
// the first launch instrumented (trace_on_gpu), the second as it is
// (launch_on_gpu), both with the dynamic shared memory; a wrong second pass
// gives a wrong sum. At n = 4096 the first pass has 16 blocks. The expected
// sums are the CPU reference's.
#include <gtest/gtest.h>

#include <set>

#include "gpu_test_helpers.h"
#include "labs/common/traced_run.h"
#include "warplab/ptx/ptx.h"

namespace {

using namespace warplab;
using warplab::test::first_difference;

// One user kernel: its file and name, the element type, and the lines of its
// memory accesses (the load into shared memory, the halving addition, the
// block's sum).
struct UserCase {
    const char* name;
    const char* file;
    const char* kernel;
    const char* type;
    std::set<std::uint32_t> lines;
};

const UserCase kCases[] = {
    {"tree_sum_int", "tree_sum.cu", "tree_sum", "int", {9, 12, 15}},
    {"tree_sum_float", "tree_sum.cu", "tree_sum", "float", {9, 12, 15}},
    {"harris_extern_int", "harris_style.cu", "reduce_halves", "int", {27, 30, 33}},
    {"sample_explicit_int", "sample_style.cu", "reduce2", "int", {22, 25, 28}},
    {"sample_instantiated_float", "sample_style.cu", "reduce2", "float", {22, 25, 28}},
};

RunRequest user_request(const UserCase& c, std::size_t n, BackendChoice backend)
{
    RunRequest r;
    r.version = "v3";
    r.n = n;
    r.block = 256;
    r.type = c.type;
    r.backend = backend;
    r.seed = 11;
    r.file = std::string(WARPLAB_USER_KERNELS) + "/" + c.file;
    r.kernel = c.kernel;
    return r;
}

class GpuUserKernelEqualsEmulator : public ::testing::TestWithParam<std::tuple<UserCase, std::size_t>> {};

TEST_P(GpuUserKernelEqualsEmulator, EventForEvent)
{
    REQUIRE_GPU();
    if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "no GPU trace of --file here: it needs nvcc to compile the file";
    const auto& [c, n] = GetParam();
    const Lab& lab = *find_lab("reduction");
    const TracedRun gpu = trace_version(lab, user_request(c, n, BackendChoice::Gpu));
    const TracedRun cpu = trace_version(lab, user_request(c, n, BackendChoice::Cpu));
    EXPECT_TRUE(gpu.result.ok) << "gpu sum " << gpu.result.value << " expected " << gpu.result.expected;
    ASSERT_TRUE(cpu.result.ok);
    // Block 0: the load (step 0), one step per halving (128 .. 1: steps 1-8),
    // and thread 0's write of the block's sum (step 9).
    ASSERT_EQ(cpu.block.steps.size(), 10u);
    EXPECT_EQ(gpu.block.steps, cpu.block.steps);
    EXPECT_TRUE(gpu.block.events == cpu.block.events) << first_difference(gpu.block.events, cpu.block.events);
    // The user's kernel ran, not v3's: its memory accesses are on its own lines.
    std::set<std::uint32_t> lines;
    for (const wl::trace::WarpEvent& e : gpu.block.events)
        if (e.space != wl::trace::Space::None) lines.insert(e.site.line);  // memory accesses, not barriers
    EXPECT_EQ(lines, c.lines);
}

INSTANTIATE_TEST_SUITE_P(UserKernels, GpuUserKernelEqualsEmulator,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(std::size_t(1000), std::size_t(4096))),
                         [](const auto& info) {
                             return std::string(std::get<0>(info.param).name) + "_" + std::to_string(std::get<1>(info.param));
                         });

}  // namespace
