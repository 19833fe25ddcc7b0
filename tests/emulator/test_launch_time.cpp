// The launches' wall time (wl::emu::launch_seconds_run), which the emulator
// benchmark sets beside a whole command's time to tell what lies outside the
// launches: it grows by each launch's run, never by more than the wall time
// around the call, and not at all for reading a module.
#include <gtest/gtest.h>

#include <chrono>

#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

// for (unsigned k = 0; k < n; ++k) {}: n iterations of an add, a compare and a branch.
constexpr const char kLoopPtx[] = R"ptx(
.version 8.0
.target sm_80
.address_size 64

.visible .entry spin(
	.param .u32 spin_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;

	ld.param.u32 	%r1, [spin_param_0];
	mov.u32 	%r2, 0;
$L__loop:
	add.s32 	%r2, %r2, 1;
	setp.lt.u32 	%p1, %r2, %r1;
	@%p1 bra 	$L__loop;
	ret;
}
)ptx";

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(LaunchSeconds, GrowByTheLaunchAloneNotByReadingAModule)
{
    const double before_parse = wl::emu::launch_seconds_run();
    const wl::ptx::Module module = wl::ptx::Module::parse(kLoopPtx, "spin.ptx");
    EXPECT_EQ(wl::emu::launch_seconds_run(), before_parse) << "reading a module is no launch";

    wl::emu::Emulator emu;
    emu.options.record = false;
    const double before = wl::emu::launch_seconds_run();
    const auto start = std::chrono::steady_clock::now();
    // 64 threads of 20,000 iterations: 3.8 million lane-instructions, milliseconds.
    wl::ptx::launch(emu, module, "spin", dim3(2), dim3(32), 0, 20000u);
    const double around = seconds_since(start);
    const double launched = wl::emu::launch_seconds_run() - before;
    EXPECT_GT(launched, 0.0);
    EXPECT_LE(launched, around);
}

}  // namespace
