// Function addresses in a .global's initialiser: a table of device function
// pointers (NVIDIA's FunctionPointers sample keeps one) or a vtable (a class
// with virtual functions) names functions nvcc declared above it. The module is
// hand-written PTX in nvcc's shape, so no nvcc is needed.
#include <gtest/gtest.h>

#include <string>

#include "ptx_test_util.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;

const std::string kTable = ptx_module(R"(
.func  (.param .b32 func_retval0) add_one(.param .b32 add_one_param_0);
.func  (.param .b32 func_retval0) twice(.param .b32 twice_param_0);
.global .align 8 .u64 table[2] = {add_one, twice};
.global .align 8 .u64 vtable[3] = {0, 0, twice};

.func  (.param .b32 func_retval0) add_one(.param .b32 add_one_param_0)
{
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [add_one_param_0];
	add.s32 	%r2, %r1, 1;
	st.param.b32 	[func_retval0+0], %r2;
	ret;
}

.func  (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [twice_param_0];
	shl.b32 	%r2, %r1, 1;
	st.param.b32 	[func_retval0+0], %r2;
	ret;
}

// out[t] = table[t % 2](t); out[32 + t] = vtable[2](t)
.visible .entry dispatch(.param .u64 dispatch_param_0)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<10>;
	ld.param.u64 	%rd1, [dispatch_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 1;
	mul.wide.u32 	%rd3, %r2, 8;
	mov.u64 	%rd4, table;
	add.s64 	%rd5, %rd4, %rd3;
	ld.global.u64 	%rd6, [%rd5];
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd6, (param0), prototype_0;
	ld.param.b32 	%r3, [retval0+0];
	}
	mul.wide.u32 	%rd7, %r1, 4;
	add.s64 	%rd8, %rd2, %rd7;
	st.global.u32 	[%rd8], %r3;
	ld.global.u64 	%rd9, [vtable+16];
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd9, (param0), prototype_1;
	ld.param.b32 	%r4, [retval0+0];
	}
	st.global.u32 	[%rd8+128], %r4;
	ret;
}
)");

// One warp: lane t's first value is t + 1 for even t (add_one), 2t for odd
// t (twice): lanes 0..3 give 1, 2, 3, 6; its second, through the vtable's
// third slot (twice), is 2t: lane 31 gives 62.
TEST(FunctionTables, AGlobalsInitialiserHoldsFunctionAddressesThatIndirectCallsReach)
{
    wl::emu::Emulator emu;
    const wl::ptx::Module m = wl::ptx::Module::parse(kTable, "table.ptx");
    int* out = emu.alloc<int>(64);
    wl::ptx::launch(emu, m, "dispatch", dim3(1), dim3(32), 0, out);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[1], 2);
    EXPECT_EQ(out[2], 3);
    EXPECT_EQ(out[3], 6);
    for (int t = 0; t < 32; ++t) {
        EXPECT_EQ(out[t], t % 2 ? 2 * t : t + 1) << "lane " << t;
        EXPECT_EQ(out[32 + t], 2 * t) << "lane " << t;
    }
}

// A name that is neither a variable nor a function declared above stays an error, naming it.
TEST(FunctionTables, AnUnknownNameInAnInitialiserIsRefusedByName)
{
    const std::string text = std::string(kTable).replace(kTable.find("{add_one, twice}"), 16, "{add_one, thrice}");
    try {
        wl::ptx::Module::parse(text, "table.ptx");
        FAIL() << "parsed";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("unknown symbol 'thrice' in an initialiser"), std::string::npos) << e.what();
    }
}

}  // namespace
