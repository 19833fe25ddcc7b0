// A fault inside a toolkit function that nvcc kept separate (a .func from a
// header under the toolkit's include folder, called, not inlined) names the
// user's line that called in, as faults in inlined toolkit code do. The
// module is hand-written PTX, so no nvcc is needed: store_word's store is at
// the header's line 40, the kernel calls it at race.cu line 9.
#include <gtest/gtest.h>

#include <string>

#include "ptx_test_util.h"
#include "tests/fault_of.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using warplab::test::fault_of;
using wl::ptx::testing::ptx_module;

const std::string kRacer = ptx_module(R"(
.file 1 "/home/student/race.cu"
.file 2 "/usr/local/cuda/include/cuda/std/__atomic/store.h"

.func store_word(
	.param .b64 store_word_param_0,
	.param .b32 store_word_param_1
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;

	.loc 2 38 3
	ld.param.u64 	%rd1, [store_word_param_0];
	ld.param.u32 	%r1, [store_word_param_1];
	.loc 2 40 5
	st.shared.u32 	[%rd1], %r1;
	ret;
}

.visible .entry racer(
	.param .u64 racer_param_0
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;
	.shared .align 4 .b8 slot[4];

	.loc 1 7 3
	mov.u32 	%r1, %tid.x;
	mov.u64 	%rd1, slot;
	{
	.param .b64 param0;
	st.param.b64 	[param0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1], %r1;
	.loc 1 9 5
	call.uni 	store_word, (param0, param1);
	}
	ret;
}
)");

class ToolkitCall : public testing::TestWithParam<wl::emu::Schedule> {};

// 64 threads, two warps, each thread stores its own index into slot[0] with
// no barrier: threads of different warps write one word unordered, a data
// race under either schedule. The store is in store.h, line 40; the report
// must name race.cu:9, the call, with the header's line beside it.
TEST_P(ToolkitCall, RaceInsideASeparateToolkitFunctionNamesTheCallersLine)
{
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    const wl::ptx::Module m = wl::ptx::Module::parse(kRacer, "racer.ptx");
    auto* out = emu.alloc<int>(1);
    const auto f = fault_of([&] { wl::ptx::launch(emu, m, "racer", dim3(1), dim3(64), 0, out); });
    ASSERT_TRUE(f) << "the race was not reported";
    const std::string message = f->what();
    EXPECT_EQ(f->fault.file, "/home/student/race.cu") << message;
    EXPECT_EQ(f->fault.line, 9u) << message;
    EXPECT_NE(message.find("data race"), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Schedules, ToolkitCall,
                         testing::Values(wl::emu::Schedule::Independent, wl::emu::Schedule::Lockstep),
                         [](const auto& info) { return std::string(wl::emu::to_string(info.param)); });

}  // namespace
