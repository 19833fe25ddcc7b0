// atomicAdd on __half, __half2, __nv_bfloat16 and __nv_bfloat162 (PTX's
// atom.add.noftz.{f16,f16x2,bf16,bf16x2}): each half is summed and rounded to
// nearest even once. Hand-written PTX, so no nvcc is needed.
#include <gtest/gtest.h>

#include <cstdint>

#include "ptx_test_util.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;

// halves(words, shorts, x2, x1): one thread adds x2 to words[0] as f16x2 and to
// words[1] as bf16x2, x1 to shorts[0] as f16 and to shorts[1] as bf16, and
// stores each old value after them (words[2..3], shorts[2..3]). Then every
// thread of the block adds f16 1.0 to shorts[4] and bf16 1.0 to shorts[5].
const std::string kHalves = ptx_module(R"(
.visible .entry halves(
	.param .u64 halves_param_0,
	.param .u64 halves_param_1,
	.param .u32 halves_param_2,
	.param .u16 halves_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .b16 	%rs<8>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [halves_param_0];
	ld.param.u64 	%rd2, [halves_param_1];
	ld.param.u32 	%r1, [halves_param_2];
	ld.param.u16 	%rs1, [halves_param_3];
	mov.u32 	%r5, %tid.x;
	setp.ne.s32 	%p1, %r5, 0;
	@%p1 bra 	$L__all;
	atom.global.add.noftz.f16x2 	%r2, [%rd1], %r1;
	atom.global.add.noftz.bf16x2 	%r3, [%rd1+4], %r1;
	st.global.u32 	[%rd1+8], %r2;
	st.global.u32 	[%rd1+12], %r3;
	atom.global.add.noftz.f16 	%rs2, [%rd2], %rs1;
	atom.global.add.noftz.bf16 	%rs3, [%rd2+2], %rs1;
	st.global.u16 	[%rd2+4], %rs2;
	st.global.u16 	[%rd2+6], %rs3;
$L__all:
	mov.b16 	%rs4, 0x3C00;
	atom.global.add.noftz.f16 	%rs5, [%rd2+8], %rs4;
	mov.b16 	%rs6, 0x3F80;
	atom.global.add.noftz.bf16 	%rs7, [%rd2+10], %rs6;
	ret;
}
)");

TEST(HalfAtomics, EachHalfIsSummedAndRoundedToNearestEvenOnce)
{
    wl::emu::Emulator emu;
    const wl::ptx::Module m = wl::ptx::Module::parse(kHalves, "halves.ptx");
    auto* words = emu.alloc<std::uint32_t>(4);
    auto* shorts = emu.alloc<std::uint16_t>(6);
    // f16: 1.0 is 0x3C00, its next 0x3C01 (1 + 2^-10); 2^-11 is 0x1000 (exponent 4, 4 - 15), half a step there.
    // 0x3C00 + 2^-11 ties between 0x3C00 and 0x3C01: even, 0x3C00. 0x3C01 + 2^-11 ties
    // between 0x3C01 and 0x3C02: even, 0x3C02.
    words[0] = 0x3C01'3C00;
    // bf16: 1.0 is 0x3F80, a step 2^-7; 0x1000 read as bf16 is 2^-95 (exponent 0x20 = 32, 32 - 127):
    // far below half a step, 1.0 + 2^-95 rounds back to 1.0 and 0x3F81 stays 0x3F81.
    words[1] = 0x3F81'3F80;
    // x1 = 0x3B80: as f16 0.9375 (0x3B80 = 2^-1 * (1 + 0x380 / 1024)), so f16 1.0 + 0.9375 = 1.9375
    // exactly: 0x3FC0. As bf16 it is 2^-8 (0x3B80: exponent 0x77 = 119, 119 - 127), half a step
    // of 1.0: 0x3F81 + 2^-8 ties between 0x3F81 and 0x3F82: even, 0x3F82.
    shorts[0] = 0x3C00;
    shorts[1] = 0x3F81;
    shorts[4] = 0;
    shorts[5] = 0;
    wl::ptx::launch(emu, m, "halves", dim3(1), dim3(64), 0, words, shorts, std::uint32_t{0x1000'1000}, std::uint16_t{0x3B80});
    EXPECT_EQ(words[0], 0x3C02'3C00u);
    EXPECT_EQ(words[1], 0x3F81'3F80u);
    EXPECT_EQ(words[2], 0x3C01'3C00u);  // the old values
    EXPECT_EQ(words[3], 0x3F81'3F80u);
    EXPECT_EQ(shorts[0], 0x3FC0);
    EXPECT_EQ(shorts[1], 0x3F82);
    EXPECT_EQ(shorts[2], 0x3C00);
    EXPECT_EQ(shorts[3], 0x3F81);
    // 64 threads each add 1.0: 64 = 2^6, f16 0x5400 (exponent 6 + 15 = 21), bf16 0x4280 (6 + 127 = 133).
    EXPECT_EQ(shorts[4], 0x5400);
    EXPECT_EQ(shorts[5], 0x4280);
}

}  // namespace
