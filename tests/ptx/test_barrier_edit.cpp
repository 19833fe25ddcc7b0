// "What if this barrier were gone" at the PTX level (warplab/ptx/barrier_edit.h),
// on a hand-written module in nvcc's layout (.file directives after the
// functions, __syncwarp() inlined from the toolkit's header); what each
// removal leaves is derived by hand in each comment. A run of a kernel
// without a barrier is tested end to end in tests/cli/without_barrier.cmake.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ptx_test_util.h"
#include "warplab/ptx/barrier_edit.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;

// Line 20 of k.cu: __syncthreads() as bar.sync; line 24: __syncwarp(), whose
// .loc is sm_30_intrinsics.hpp:110 inlined at k.cu:24; line 24 also has
// a guarded barrier.sync; line 27: __syncthreads_count (bar.red), which is
// no barrier to remove; line 30 of other.cuh: another file's __syncthreads().
const std::string kModule = ptx_module(R"(
.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.loc	1 20 5
	bar.sync 	0;
	.loc	1 24 5
	.loc	2 110 3, function_name $L__info_string0, inlined_at 1 24 5
	bar.warp.sync 	-1;
	.loc	1 24 5
	@%p1 barrier.sync.aligned 	0;
	.loc	1 27 5
	bar.red.popc.u32 	%r1, 0, %p1;
	.loc	3 30 5
	bar.sync 	0;
	ret;
}
	.file	1 "tests/k.cu"
	.file	2 "/usr/local/cuda/include/sm_30_intrinsics.hpp"
	.file	3 "kernels/other.cuh"
)");

unsigned count(const std::string& text, const std::string& what)
{
    unsigned n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// Line 24 holds two barriers, the inlined __syncwarp() and the guarded
// barrier.sync: both go, guard and all; line 20's and other.cuh's stay, and so
// does bar.red. k.cu's barrier lines are 20 and 24 (27's bar.red is not one).
TEST(BarrierEdit, RemovesEveryBarrierOfTheLineAndNothingElse)
{
    const wl::ptx::BarrierEdit e = wl::ptx::without_barriers(kModule, "k.cu", 24);
    EXPECT_EQ(e.removed, 2u);
    EXPECT_EQ(e.barrier_lines, (std::vector<std::uint32_t>{20, 24}));
    EXPECT_EQ(count(e.ptx, "bar.warp.sync"), 0u);
    EXPECT_EQ(count(e.ptx, "barrier.sync"), 0u);
    EXPECT_EQ(count(e.ptx, "@%p1"), 0u);
    EXPECT_EQ(count(e.ptx, "bar.sync"), 2u);  // line 20's and other.cuh's
    EXPECT_EQ(count(e.ptx, "bar.red"), 1u);
    // The rest is unchanged, character for character, and so are the line numbers.
    EXPECT_EQ(e.ptx.size(), kModule.size());
    EXPECT_EQ(std::count(e.ptx.begin(), e.ptx.end(), '\n'), std::count(kModule.begin(), kModule.end(), '\n'));
}

// The file is matched by its name, as a front end names it (the version's path
// "kernels/other.cuh", or the user's file however it was given).
TEST(BarrierEdit, MatchesTheFileByName)
{
    EXPECT_EQ(wl::ptx::without_barriers(kModule, "/home/student/kernels/other.cuh", 30).removed, 1u);
    EXPECT_EQ(wl::ptx::without_barriers(kModule, "k.cu", 30).removed, 0u);  // line 30 is other.cuh's
    EXPECT_EQ(wl::ptx::without_barriers(kModule, "other.cuh", 20).removed, 0u);
}

// A line without a barrier removes nothing and leaves the text as it was;
// the lines that have one are still listed, for the front end's message.
TEST(BarrierEdit, ALineWithoutABarrierRemovesNothing)
{
    for (std::uint32_t line : {21u, 27u}) {
        const wl::ptx::BarrierEdit e = wl::ptx::without_barriers(kModule, "k.cu", line);
        EXPECT_EQ(e.removed, 0u) << line;
        EXPECT_EQ(e.ptx, kModule) << line;
        EXPECT_EQ(e.barrier_lines, (std::vector<std::uint32_t>{20, 24})) << line;
    }
    EXPECT_TRUE(wl::ptx::without_barriers(kModule, "absent.cu", 20).barrier_lines.empty());
}

// What is left parses: the module still has its kernel.
TEST(BarrierEdit, TheEditedModuleParses)
{
    const wl::ptx::Module m = wl::ptx::Module::parse(wl::ptx::without_barriers(kModule, "k.cu", 24).ptx, "edited");
    EXPECT_NE(m.find("k"), nullptr);
}

}  // namespace
