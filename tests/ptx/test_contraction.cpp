// ptxas's contraction, which the interpreter does at load (lower.cpp): a mul
// and an add or sub without a rounding modifier, which PTX lets ptxas fold into
// a multiply-add and which an H100 gives rounded once. Hand-written PTX (nvcc
// folds most such pairs itself), so no nvcc is needed.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "ptx_test_util.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;

// in: a, c (f32), x (f32, the subnormal of differential kernel 1369), da, dc (f64).
// out (u32): each result's bits; dout (u64): the doubles'.
const std::string kPairs = ptx_module(R"(
.visible .entry pairs(.param .u64 p_in, .param .u64 p_din, .param .u32 p_n, .param .u64 p_out, .param .u64 p_dout)
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<24>;
	.reg .f64 	%fd<8>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [p_in];
	ld.param.u64 	%rd2, [p_din];
	ld.param.u32 	%r1, [p_n];
	ld.param.u64 	%rd3, [p_out];
	ld.param.u64 	%rd4, [p_dout];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	cvta.to.global.u64 	%rd3, %rd3;
	cvta.to.global.u64 	%rd4, %rd4;
	ld.global.f32 	%f1, [%rd1];
	ld.global.f32 	%f2, [%rd1+4];
	ld.global.f32 	%f3, [%rd1+8];
	ld.global.f64 	%fd1, [%rd2];
	ld.global.f64 	%fd2, [%rd2+8];
	// 0: a*a + c
	mul.f32 	%f4, %f1, %f1;
	add.f32 	%f5, %f4, %f2;
	st.global.f32 	[%rd3], %f5;
	// 1: -c - a*a, the product second: -(a*a) + -c
	neg.f32 	%f6, %f2;
	mul.f32 	%f7, %f1, %f1;
	sub.f32 	%f8, %f6, %f7;
	st.global.f32 	[%rd3+4], %f8;
	// 2: kernel 1369's x * 0.5 - x, as nvcc wrote it
	mul.f32 	%f9, %f3, 0f3F000000;
	sub.f32 	%f10, %f9, %f3;
	st.global.f32 	[%rd3+8], %f10;
	// 3: an explicit rounding keeps the two roundings: mul.rn, then add
	mul.rn.f32 	%f11, %f1, %f1;
	add.f32 	%f12, %f11, %f2;
	st.global.f32 	[%rd3+12], %f12;
	// 4: the product hoisted out of a loop, its operand written twice before the mul (kernel 2654's shape):
	// each of n rounds adds a*a rounded once; n = 1 here
	mov.f32 	%f13, %f1;
	setp.eq.u32 	%p1, %r1, 7;
	@%p1 add.rm.f32 	%f13, %f13, %f13;
	mul.f32 	%f14, %f13, %f13;
	mov.f32 	%f15, %f2;
	mov.u32 	%r2, 0;
$L_loop:
	add.f32 	%f15, %f14, %f15;
	add.s32 	%r2, %r2, 1;
	setp.lt.u32 	%p2, %r2, %r1;
	@%p2 bra 	$L_loop;
	st.global.f32 	[%rd3+16], %f15;
	// 5: the operand rewritten between the mul and the add: not folded (the fma would read the new value)
	mov.f32 	%f16, %f1;
	mul.f32 	%f17, %f16, %f1;
	mov.f32 	%f16, %f2;
	add.f32 	%f18, %f17, %f2;
	st.global.f32 	[%rd3+20], %f18;
	st.global.f32 	[%rd3+24], %f16;
	// 6: doubles too
	mul.f64 	%fd3, %fd1, %fd1;
	add.f64 	%fd4, %fd3, %fd2;
	st.global.f64 	[%rd4], %fd4;
	ret;
}
)");

TEST(Contraction, MulAndAddWithoutRoundingFoldIntoOneRounding)
{
    const auto m = wl::ptx::Module::parse(kPairs, "pairs.ptx");
    wl::emu::Emulator emu;
    // a = 1 + 2^-12 (0x3F800800), c = -1, x = 0x00531ABD (a subnormal: 0x531ABD units of 2^-149)
    const std::uint32_t fin[3] = {0x3F800800u, 0xBF800000u, 0x00531ABDu};
    auto* in = emu.alloc<std::uint32_t>(3);
    std::memcpy(in, fin, sizeof fin);
    auto* din = emu.alloc<double>(2);
    din[0] = 1.0 + 0x1p-27;  // da
    din[1] = -1.0;           // dc
    auto* out = emu.alloc<std::uint32_t>(7);
    auto* dout = emu.alloc<std::uint64_t>(1);
    wl::ptx::launch(emu, m, "pairs", dim3(1), dim3(1), 0, in, din, 1u, out, dout);
    // a*a = 1 + 2^-11 + 2^-24 exactly. Rounded to float it ties (2^-24 is half
    // an ulp at 1) to the even 1 + 2^-11, and + c gives 2^-11 (0x3A000000);
    // rounded once, a*a + c = 2^-11 + 2^-24 = 2^-11 (1 + 2^-13): 0x3A000400.
    EXPECT_EQ(out[0], 0x3A000400u);
    EXPECT_EQ(out[1], 0xBA000400u);  // 1 - a*a, the same magnitude negated (two roundings: 0xBA000000)
    // x/2 - x = -x/2 = -0x298D5E.8 units: a tie, to the even 0x298D5E (the
    // H100's word); x * 0.5 rounded first is 0x298D5E, minus x gives 0x298D5F.
    EXPECT_EQ(out[2], 0x80298D5Eu);
    EXPECT_EQ(out[3], 0x3A000000u);  // mul.rn: rounded apart
    EXPECT_EQ(out[4], 0x3A000400u);  // the loop's one round, folded
    EXPECT_EQ(out[5], 0x3A000000u);  // rewritten operand: rounded apart, with the value the mul read
    EXPECT_EQ(out[6], 0xBF800000u);  // ... which the register no longer holds (c)
    // da*da = 1 + 2^-26 + 2^-54: to double (ulp 2^-52 at 1) it rounds down to
    // 1 + 2^-26, and + dc gives 2^-26 (0x3E50000000000000); once: 2^-26 (1 + 2^-28).
    EXPECT_EQ(dout[0], 0x3E50000001000000ull);
}

// The differential tests' kernels' own pairs, as nvcc left them: the product
// hoisted out of a loop whose add stays in it (thread i: x, y, acc, n from
// in[4i..]; acc += x*y, n times).
const std::string kHoisted = ptx_module(R"(
.visible .entry hoisted(.param .u64 p_in, .param .u64 p_out)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<6>;
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<7>;
	ld.param.u64 	%rd1, [p_in];
	ld.param.u64 	%rd2, [p_out];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.f32 	%f1, [%rd4];
	ld.global.f32 	%f2, [%rd4+4];
	ld.global.f32 	%f3, [%rd4+8];
	ld.global.u32 	%r2, [%rd4+12];
	mul.f32 	%f4, %f1, %f2;
	mov.u32 	%r3, 0;
$L_loop:
	add.f32 	%f3, %f4, %f3;
	add.s32 	%r3, %r3, 1;
	setp.lt.u32 	%p1, %r3, %r2;
	@%p1 bra 	$L_loop;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd2, %rd5;
	st.global.f32 	[%rd6], %f3;
	ret;
}
)");

TEST(Contraction, TheDifferentialKernelsPairsGiveTheH100sWords)
{
    const auto m = wl::ptx::Module::parse(kHoisted, "hoisted.ptx");
    wl::emu::Emulator emu;
    // Kernel 2536 (f3 = f1 * 0.5f + f3, lane 25: once): x = 0xA9, 169 units
    // of 2^-149, acc = 0x71, 113 units. x/2 + acc = 197.5 units, a tie, to the
    // even 198 (0xC6); x/2 rounded first is 84 (the even of 84.5), plus 113: 197.
    // Kernel 2654 (f0 = f3 * 65504.0f + f0, block 1 thread 1: (u3 & 7) + (tid & 3) = 3 rounds).
    // Kernel 6690 (f2 = f3 * 1e30f + f2, lane 10: once): x = 0x8063FCD5, a
    // subnormal, times 1e30 is -9.1824133009e-9, which rounds alone to
    // 0xB21DC0AE; with acc = 0xA7195BE2 the sum rounded once is 0xB21DC0B1,
    // the rounded product plus acc 0xB21DC0B0. The words for 2654 and 6690 were
    // checked by exact rational arithmetic; all three are the H100's.
    const std::uint32_t cases[3][4] = {{0x000000A9u, 0x3F000000u, 0x00000071u, 1},
                                       {0x69DEB2FAu, 0x477FE000u, 0x66446AB1u, 3},
                                       {0x8063FCD5u, 0x7149F2CAu, 0xA7195BE2u, 1}};
    auto* in = emu.alloc<std::uint32_t>(12);
    std::memcpy(in, cases, sizeof cases);
    auto* out = emu.alloc<std::uint32_t>(3);
    wl::ptx::launch(emu, m, "hoisted", dim3(1), dim3(3), 0, in, out);
    EXPECT_EQ(out[0], 0x000000C6u);  // kernel 2536
    EXPECT_EQ(out[1], 0x72A6F15Bu);  // kernel 2654 (rounded apart: 0x72A6F15C)
    EXPECT_EQ(out[2], 0xB21DC0B1u);  // kernel 6690
}

// Long kernels, as nvcc's unrolled loops make them, load in well under a
// second: the contraction serves every add from one pass over the kernel's
// blocks. Two walks of the kernel for each add took 2.7 s for the first
// below; keeping what reaches each instruction, 6.7 s and 1.5 GB for the second.
std::string reg(int i) { return "%f" + std::to_string(i); }

// The kernel `name`(in, out): in[0..2] into %f1..%f3, then `body`, then out[0] = %f<result>.
std::string long_kernel(const std::string& name, const std::string& body, int result)
{
    return ptx_module(".visible .entry " + name + "(.param .u64 p_in, .param .u64 p_out)\n{\n\t.reg .f32 %f<" +
                      std::to_string(result + 1) + ">;\n\t.reg .b64 %rd<3>;\n" +
                      "\tld.param.u64 %rd1, [p_in];\n\tld.param.u64 %rd2, [p_out];\n"
                      "\tld.global.f32 %f1, [%rd1];\n\tld.global.f32 %f2, [%rd1+4];\n\tld.global.f32 %f3, [%rd1+8];\n" +
                      body + "\tst.global.f32 [%rd2], " + reg(result) + ";\n\tret;\n}\n");
}

wl::ptx::Module load_in_well_under_a_second(const std::string& text, const std::string& name)
{
    const auto start = std::chrono::steady_clock::now();
    wl::ptx::Module m = wl::ptx::Module::parse(text, name + ".ptx");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 1.0) << "loading " << name;
    return m;
}

// out[0] of `name` run with in = {x, y, z}.
float run_long(const wl::ptx::Module& m, const std::string& name, float x, float y, float z)
{
    wl::emu::Emulator emu;
    auto* in = emu.alloc<float>(3);
    in[0] = x, in[1] = y, in[2] = z;
    auto* out = emu.alloc<float>(1);
    wl::ptx::launch(emu, m, name.c_str(), dim3(1), dim3(1), 0, in, out);
    return out[0];
}

// 30,000 mul/add pairs in a chain, acc = acc * c + d, each pair's product
// fresh and read at once: 60,007 instructions. With c = 1 + 2^-12, d = 1/3,
// acc = 1, each pair rounded once is std::fma's word; rounded apart the chain
// ends elsewhere (2069031.88 against 2068951.12).
TEST(Contraction, ALongChainOfPairsLoadsInWellUnderASecond)
{
    constexpr int kPairs = 30000;
    std::string body;
    for (int i = 0; i < kPairs; ++i)  // reg(2i+3): acc before pair i; %f1: c; %f2: d
        body += "\tmul.f32 " + reg(2 * i + 4) + ", " + reg(2 * i + 3) + ", %f1;\n\tadd.f32 " + reg(2 * i + 5) + ", " +
                reg(2 * i + 4) + ", %f2;\n";
    const auto m = load_in_well_under_a_second(long_kernel("chain", body, 2 * kPairs + 3), "chain");
    const float c = 1.0f + 0x1p-12f, d = 1.0f / 3.0f;
    float fused = 1.0f, apart = 1.0f;
    for (int i = 0; i < kPairs; ++i) {
        fused = std::fma(fused, c, d);
        volatile float product = apart * c;  // rounded on its own, whatever the host compiler contracts
        apart = product + d;
    }
    ASSERT_NE(fused, apart);  // the test tells folded pairs from pairs rounded apart
    EXPECT_EQ(run_long(m, "chain", c, d, 1.0f), fused) << "rounded apart: " << apart;
}

// 10,000 products of a and b first, then 10,000 adds summing them onto acc:
// every product is waiting for its add at once (20,007 instructions). Each add
// folds, acc = fma(a, b, acc) 10,000 times. With a = 0.7, b = 1/7 and acc = -1000
// the sum ends near 0, where the product rounded apart (0x3DCCCCCD) shows:
// -0.0971123204 against the folded -0.0971123055.
TEST(Contraction, TenThousandProductsReadLateLoadInWellUnderASecond)
{
    constexpr int kProducts = 10000;
    std::string body;
    for (int i = 0; i < kProducts; ++i) body += "\tmul.f32 " + reg(4 + i) + ", %f1, %f2;\n";
    for (int i = 0; i < kProducts; ++i)  // reg(4 + kProducts + i): acc after add i, from %f3
        body += "\tadd.f32 " + reg(4 + kProducts + i) + ", " + reg(4 + i) + ", " + (i ? reg(3 + kProducts + i) : "%f3") + ";\n";
    const auto m = load_in_well_under_a_second(long_kernel("late", body, 3 + 2 * kProducts), "late");
    const float a = 0.7f, b = 1.0f / 7.0f;
    float fused = -1000.0f, apart = -1000.0f;
    for (int i = 0; i < kProducts; ++i) {
        fused = std::fma(a, b, fused);
        volatile float product = a * b;
        apart = product + apart;
    }
    ASSERT_NE(fused, apart);
    EXPECT_EQ(run_long(m, "late", a, b, -1000.0f), fused) << "rounded apart: " << apart;
}

}  // namespace
