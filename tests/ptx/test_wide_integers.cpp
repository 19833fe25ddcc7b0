// 64-bit high products and carries, computed without __int128 (which 32-bit
// hosts lack), on hand-written PTX: no nvcc needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "ptx_test_util.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;

const std::string kWide = ptx_module(R"(
.visible .entry wide(.param .u64 p_in, .param .u64 p_out)
{
	.reg .b64 	%rd<20>;
	ld.param.u64 	%rd1, [p_in];
	ld.param.u64 	%rd2, [p_out];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	ld.global.u64 	%rd3, [%rd1];
	ld.global.u64 	%rd4, [%rd1+8];
	ld.global.u64 	%rd5, [%rd1+16];
	ld.global.u64 	%rd6, [%rd1+24];
	ld.global.u64 	%rd7, [%rd1+32];
	ld.global.u64 	%rd8, [%rd1+40];
	ld.global.u64 	%rd9, [%rd1+48];
	mul.hi.u64 	%rd10, %rd3, %rd3;
	st.global.u64 	[%rd2], %rd10;
	mul.hi.s64 	%rd11, %rd4, %rd5;
	st.global.u64 	[%rd2+8], %rd11;
	mul.hi.s64 	%rd12, %rd6, %rd6;
	st.global.u64 	[%rd2+16], %rd12;
	mul.hi.u64 	%rd13, %rd7, %rd8;
	st.global.u64 	[%rd2+24], %rd13;
	mul.hi.s64 	%rd14, %rd7, %rd4;
	st.global.u64 	[%rd2+32], %rd14;
	add.cc.u64 	%rd15, %rd3, %rd9;
	st.global.u64 	[%rd2+40], %rd15;
	addc.u64 	%rd16, %rd9, %rd9;
	st.global.u64 	[%rd2+48], %rd16;
	ret;
}
)");

// in: 2^64 - 1, -3, 2^62, -2^63, a = 0x0123456789ABCDEF, b = 0xFEDCBA9876543210, 1.
// (2^64 - 1)^2 = 2^128 - 2^65 + 1: high word 2^64 - 2.
// -3 * 2^62 = -0.75 * 2^64: high word floor(-0.75) = -1.
// (-2^63)^2 = 2^126: high word 2^62.
// a * b = 0x0121FA00AD77D742 * 2^64 + low (by exact integer arithmetic).
// a * -3: a < 2^64 / 3, so the product lies in (-2^64, 0): high word -1.
// (2^64 - 1) + 1 = 2^64: low word 0 and a carry; addc 1 + 1 + carry = 3.
TEST(WideIntegers, HighProductsAndCarries)
{
    const auto m = wl::ptx::Module::parse(kWide, "wide.ptx");
    wl::emu::Emulator emu;
    const std::uint64_t values[7] = {~0ull, std::uint64_t(-3), 1ull << 62, 1ull << 63, 0x0123456789ABCDEFull,
                                     0xFEDCBA9876543210ull, 1};
    std::uint64_t* in = emu.alloc<std::uint64_t>(7);
    std::memcpy(in, values, sizeof values);
    std::uint64_t* out = emu.alloc<std::uint64_t>(7);
    wl::ptx::launch(emu, m, "wide", dim3(1), dim3(1), 0, in, out);
    const std::uint64_t want[7] = {0xFFFFFFFFFFFFFFFEull, ~0ull, 1ull << 62, 0x0121FA00AD77D742ull, ~0ull, 0, 3};
    for (int i = 0; i < 7; ++i) EXPECT_EQ(out[i], want[i]) << "out[" << i << "]";
}

}  // namespace
