// The emulator's count of lane-instructions (wl::emu::lane_instructions_run),
// which the emulator benchmark divides by time: one per lane an instruction
// executes for, none for a lane whose guard predicate is false, the same under
// either schedule and at either warp width.
#include <gtest/gtest.h>

#include <cstdint>

#include "ptx_test_util.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;

// Every thread loads the parameter n, and threads below 10 add once more
// (guarded); then a loop of n iterations whose branch back is guarded.
const std::string kCountedPtx = ptx_module(R"ptx(
.visible .entry counted(
	.param .u32 counted_param_0
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<5>;

	ld.param.u32 	%r1, [counted_param_0];
	mov.u32 	%r2, %tid.x;
	setp.lt.u32 	%p1, %r2, 10;
	@%p1 add.s32 	%r3, %r2, 1;
	mov.u32 	%r4, 0;
$L__loop:
	add.s32 	%r4, %r4, 1;
	setp.lt.u32 	%p2, %r4, %r1;
	@%p2 bra 	$L__loop;
	ret;
}
)ptx", "8.0", "sm_80");

std::uint64_t lane_instructions_of(wl::emu::Schedule schedule, unsigned warp_width, unsigned blocks, unsigned threads,
                                   unsigned n)
{
    static const wl::ptx::Module module = wl::ptx::Module::parse(kCountedPtx, "counted.ptx");
    wl::emu::Emulator emu;
    emu.options.schedule = schedule;
    emu.options.warp_width = warp_width;
    emu.options.record = false;
    const std::uint64_t before = wl::emu::lane_instructions_run();
    wl::ptx::launch(emu, module, "counted", dim3(blocks), dim3(threads), 0, n);
    return wl::emu::lane_instructions_run() - before;
}

// Per thread with n = 5: ld.param, mov, setp, mov (4); the loop's add and setp
// 5 times each (10); its bra taken 4 times (on the 5th pass %p2 is false: not
// executed); ret (1): 19. Threads 0-9 of each block add 1 (the guarded add).
// Two blocks of 48 threads (a warp and a half): 2 * (48 * 19 + 10) = 1844.
TEST(LaneInstructions, CountsEachExecutingLaneOnce)
{
    EXPECT_EQ(lane_instructions_of(wl::emu::Schedule::Independent, 32, 2, 48, 5), 1844u);
}

// The same work, run lane by lane (Lockstep) or 64 lanes a warp, is the same count.
TEST(LaneInstructions, SameUnderEverySchedule)
{
    EXPECT_EQ(lane_instructions_of(wl::emu::Schedule::Lockstep, 32, 2, 48, 5), 1844u);
    EXPECT_EQ(lane_instructions_of(wl::emu::Schedule::Independent, 64, 2, 48, 5), 1844u);
}

// n = 1: the loop runs once and its branch never: 4 + 2 + 1 = 7 a thread;
// one block of 7 threads, all below 10: 7 * 7 + 7 = 56.
TEST(LaneInstructions, GuardedOffBranchIsNotCounted)
{
    EXPECT_EQ(lane_instructions_of(wl::emu::Schedule::Independent, 32, 1, 7, 1), 56u);
}

}  // namespace
