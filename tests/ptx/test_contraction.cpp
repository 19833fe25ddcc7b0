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
#include <vector>

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
	// 4: the product of two registers hoisted out of a loop, its operand written twice before the mul:
	// the add in another block, so ptxas keeps them apart (FMUL, then FADD in the loop); n = 1 here
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
    EXPECT_EQ(out[4], 0x3A000000u);  // the loop's one round: a*a rounded, then + c
    EXPECT_EQ(out[5], 0x3A000000u);  // rewritten operand: rounded apart, with the value the mul read
    EXPECT_EQ(out[6], 0xBF800000u);  // ... which the register no longer holds (c)
    // da*da = 1 + 2^-26 + 2^-54: to double (ulp 2^-52 at 1) it rounds down to
    // 1 + 2^-26, and + dc gives 2^-26 (0x3E50000000000000); once: 2^-26 (1 + 2^-28).
    EXPECT_EQ(dout[0], 0x3E50000001000000ull);
}

// The differential tests' kernels' own pairs, as nvcc left them: the product
// hoisted out of a loop whose add stays in it (thread i: x, acc, n from
// in[3i..]; acc += x * multiplier, n times). ptxas folds them where the
// multiplier is a constant, as in those kernels, and keeps them apart where it
// is a register (another block).
std::string hoisted(const std::string& multiplier)
{
    return ptx_module(R"(
.visible .entry hoisted(.param .u64 p_in, .param .u64 p_out, .param .f32 p_y)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<6>;
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<7>;
	ld.param.u64 	%rd1, [p_in];
	ld.param.u64 	%rd2, [p_out];
	ld.param.f32 	%f2, [p_y];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 12;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.f32 	%f1, [%rd4];
	ld.global.f32 	%f3, [%rd4+4];
	ld.global.u32 	%r2, [%rd4+8];
	mul.f32 	%f4, %f1, )" + multiplier + R"(;
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
}

// out[0] of `hoisted` with the multiplier `multiplier` (y, where it is %f2) on x, acc and n.
std::uint32_t run_hoisted(const std::string& multiplier, float y, std::uint32_t x, std::uint32_t acc, std::uint32_t n)
{
    const auto m = wl::ptx::Module::parse(hoisted(multiplier), "hoisted.ptx");
    wl::emu::Emulator emu;
    auto* in = emu.alloc<std::uint32_t>(3);
    in[0] = x, in[1] = acc, in[2] = n;
    auto* out = emu.alloc<std::uint32_t>(1);
    wl::ptx::launch(emu, m, "hoisted", dim3(1), dim3(1), 0, in, out, y);
    return out[0];
}

TEST(Contraction, TheDifferentialKernelsPairsGiveTheH100sWords)
{
    // Kernel 2536 (f3 = f1 * 0.5f + f3, lane 25: once): x = 0xA9, 169 units
    // of 2^-149, acc = 0x71, 113 units. x/2 + acc = 197.5 units, a tie, to the
    // even 198 (0xC6); x/2 rounded first is 84 (the even of 84.5), plus 113: 197.
    // Kernel 2654 (f0 = f3 * 65504.0f + f0, block 1 thread 1: (u3 & 7) + (tid & 3) = 3 rounds).
    // Kernel 6690 (f2 = f3 * 1e30f + f2, lane 10: once): x = 0x8063FCD5, a
    // subnormal, times 1e30 is -9.1824133009e-9, which rounds alone to
    // 0xB21DC0AE; with acc = 0xA7195BE2 the sum rounded once is 0xB21DC0B1,
    // the rounded product plus acc 0xB21DC0B0. The words for 2654 and 6690 were
    // checked by exact rational arithmetic; all three are the H100's.
    EXPECT_EQ(run_hoisted("0f3F000000", 0, 0x000000A9u, 0x00000071u, 1), 0x000000C6u);  // kernel 2536
    EXPECT_EQ(run_hoisted("0f477FE000", 0, 0x69DEB2FAu, 0x66446AB1u, 3), 0x72A6F15Bu);  // kernel 2654
    EXPECT_EQ(run_hoisted("0f7149F2CA", 0, 0x8063FCD5u, 0xA7195BE2u, 1), 0xB21DC0B1u);  // kernel 6690
    // The same multipliers in a register: rounded apart, the words above' other ones.
    EXPECT_EQ(run_hoisted("%f2", 0.5f, 0x000000A9u, 0x00000071u, 1), 0x000000C5u);
    EXPECT_EQ(run_hoisted("%f2", 65504.0f, 0x69DEB2FAu, 0x66446AB1u, 3), 0x72A6F15Cu);
    EXPECT_EQ(run_hoisted("%f2", 1e30f, 0x8063FCD5u, 0xA7195BE2u, 1), 0xB21DC0B0u);
}

// ptxas's rule, case by case as tests/differential/test_sass_outline.py
// builds its 48 PTX cases (f32 and f64, add and sub, the two in one block or a
// branch or a call between, the mul's second operand a register or an
// immediate, the product read by the add alone or also stored): folded exactly
// where the product has no other reader and the two share a block or the mul
// has an immediate operand. Here a = 1 + 2^-12 (f64: 1 + 2^-27) times itself,
// plus -1 (sub: minus 1), so that one rounding and two differ: a*a = 1 + 2^-11
// + 2^-24 rounds to the even 1 + 2^-11 (a tie), giving 2^-11 (0x3A000000),
// where once it is 2^-11 (1 + 2^-13) (0x3A000400); in f64 da*da = 1 + 2^-26 +
// 2^-54 rounds down to 1 + 2^-26, giving 2^-26 (0x3E50000000000000), and once
// 2^-26 (1 + 2^-28) (0x3E50000001000000).
const char* const kKept = R"(
.func (.param .b32 out) kept(.param .b32 x)
{
	.reg .b32 	%r<3>;
	ld.param.b32 	%r1, [x];
	mul.lo.s32 	%r2, %r1, 3;
	st.param.b32 	[out], %r2;
	ret;
}
)";

// A call of `kept`, as nvcc writes one, its result stored at [%rd4+2048].
const char* const kCallKept = R"(
	{
	.param .b32 a0;
	.param .b32 r0;
	st.param.b32 	[a0], %r1;
	call.uni 	(r0), kept, (a0);
	ld.param.b32 	%r2, [r0];
	}
	st.global.u32 	[%rd4+2048], %r2;
)";

struct RuleCase {
    bool f64, sub, immediate, stored;
    std::string between;  // "nothing", "branch" or "call"
    std::string name() const
    {
        return std::string(f64 ? "f64" : "f32") + (sub ? "_sub_" : "_add_") + between +
               (immediate ? "_immediate" : "_register") + (stored ? "_stored" : "_alone");
    }
    bool ptxas_folds() const { return !stored && (between == "nothing" || immediate); }
};

// The case's kernel (in, out): thread t stores mul/add's result at out[t]
// (threads below 9 skip the add in the branch case, as in test_sass_outline.py).
std::string rule_kernel(const RuleCase& c)
{
    const std::string ty = c.f64 ? "f64" : "f32", f = c.f64 ? "%fd" : "%f", size = c.f64 ? "8" : "4";
    const std::string a = c.f64 ? "0d3FF0000002000000" : "0f3F800800";
    const std::string one = c.f64 ? (c.sub ? "0d3FF0000000000000" : "0dBFF0000000000000") : (c.sub ? "0f3F800000" : "0fBF800000");
    std::string k = ".visible .entry " + c.name() + "(.param .u64 p_in, .param .u64 p_out)\n{\n\t.reg ." + ty + " " + f +
                    "<5>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<5>;\n\t.reg .pred %p<2>;\n" +
                    "\tld.param.u64 %rd1, [p_in];\n\tld.param.u64 %rd2, [p_out];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
                    "\tcvta.to.global.u64 %rd2, %rd2;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, " + size +
                    ";\n\tadd.s64 %rd4, %rd2, %rd3;\n" + "\tld.global." + ty + " " + f + "1, [%rd1];\n\tld.global." + ty + " " +
                    f + "2, [%rd1+8];\n\tmov." + ty + " " + f + "4, " + f + "1;\n" + "\tmul." + ty + " " + f + "3, " + f +
                    "1, " + (c.immediate ? a : f + "2") + ";\n";
    if (c.stored) k += "\tst.global." + ty + " [%rd4+1024], " + f + "3;\n";
    if (c.between == "branch") k += "\tsetp.lt.u32 %p1, %r1, 9;\n\t@%p1 bra SKIP;\n";
    if (c.between == "call") k += kCallKept;
    k += std::string("\t") + (c.sub ? "sub." : "add.") + ty + " " + f + "4, " + f + "3, " + one + ";\n";
    if (c.between == "branch") k += "SKIP:\n";
    return k + "\tst.global." + ty + " [%rd4], " + f + "4;\n\tret;\n}\n";
}

TEST(Contraction, PtxasRuleInItsFortyEightCases)
{
    std::vector<RuleCase> cases;
    for (bool f64 : {false, true})
        for (bool sub : {false, true})
            for (const char* between : {"nothing", "branch", "call"})
                for (bool immediate : {false, true})
                    for (bool stored : {false, true}) cases.push_back({f64, sub, immediate, stored, between});
    std::string text = kKept;
    for (const RuleCase& c : cases) text += rule_kernel(c);
    const auto m = wl::ptx::Module::parse(ptx_module(text), "rule.ptx");
    int folded = 0;
    for (const RuleCase& c : cases) {
        wl::emu::Emulator emu;
        auto* in = emu.alloc<std::uint64_t>(2);
        const std::uint64_t a = c.f64 ? 0x3FF0000002000000ull : 0x3F800800u;  // a, as the f32 or f64 bits
        in[0] = in[1] = a;
        auto* out = emu.alloc<std::uint64_t>(1024);
        wl::ptx::launch(emu, m, c.name().c_str(), dim3(1), dim3(10), 0, in, out);
        std::uint64_t word = 0;  // thread 9's, which takes the add
        std::memcpy(&word, reinterpret_cast<const unsigned char*>(out) + 9 * (c.f64 ? 8 : 4), c.f64 ? 8 : 4);
        const std::uint64_t once = c.f64 ? 0x3E50000001000000ull : 0x3A000400u;
        const std::uint64_t twice = c.f64 ? 0x3E50000000000000ull : 0x3A000000u;
        EXPECT_EQ(word, c.ptxas_folds() ? once : twice) << c.name();
        folded += c.ptxas_folds();
    }
    EXPECT_EQ(folded, 16);  // per type and op, the product alone: in one block (register, immediate), across a branch or call (immediate)
}

// More shapes ptxas 13.0 was seen to fold or keep apart (sm_90, the PTX built
// here): every reader an add decides, not their number; a guarded return ends
// a block; add.sat folds (FFMA.SAT); a branch to the next instruction does
// not end one, a join does. a and -1 as above: 0x3A000400 folded, 0x3A000000 apart.
const std::string kShapes = ptx_module(R"(
.visible .entry shapes(.param .u64 p_in, .param .u64 p_out)
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<30>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [p_in];
	ld.param.u64 	%rd2, [p_out];
	ld.global.f32 	%f1, [%rd1];
	mov.u32 	%r1, %tid.x;
	setp.gt.u32 	%p1, %r1, 9;
	// 0, 1: two adds read the product: both folded (FFMA, FFMA)
	mul.f32 	%f2, %f1, %f1;
	add.f32 	%f3, %f2, 0fBF800000;
	add.f32 	%f4, %f2, 0fBF800000;
	st.global.f32 	[%rd2], %f3;
	st.global.f32 	[%rd2+4], %f4;
	// 2: an add and a compare read it: apart (FMUL, FADD)
	mul.f32 	%f5, %f1, %f1;
	add.f32 	%f6, %f5, 0fBF800000;
	setp.lt.f32 	%p2, %f5, 0f00000000;
	@%p2 mov.f32 	%f6, %f1;
	st.global.f32 	[%rd2+8], %f6;
	// 3: add.sat: folded (its 2^-11 is not clamped)
	mul.f32 	%f7, %f1, %f1;
	add.sat.f32 	%f8, %f7, 0fBF800000;
	st.global.f32 	[%rd2+12], %f8;
	// 4: a bar.sync between: one block, folded
	mul.f32 	%f9, %f1, %f1;
	bar.sync 	0;
	add.f32 	%f10, %f9, 0fBF800000;
	st.global.f32 	[%rd2+16], %f10;
	// 5: a guarded return between (not taken): apart; 6: the same by an immediate: folded
	mul.f32 	%f11, %f1, %f1;
	mul.f32 	%f12, %f1, 0f3F800800;
	@%p1 ret;
	add.f32 	%f13, %f11, 0fBF800000;
	add.f32 	%f14, %f12, 0fBF800000;
	st.global.f32 	[%rd2+20], %f13;
	st.global.f32 	[%rd2+24], %f14;
	// 7: a branch to the next instruction: one block, folded
	mul.f32 	%f15, %f1, %f1;
	@%p1 bra 	$L_next;
$L_next:
	add.f32 	%f16, %f15, 0fBF800000;
	st.global.f32 	[%rd2+28], %f16;
	// 8: the add at a join (taken or not, the add is after it): apart
	mul.f32 	%f17, %f1, %f1;
	mov.f32 	%f18, 0fBF800000;
	@%p1 bra 	$L_join;
	add.f32 	%f18, %f18, 0f00000000;
$L_join:
	add.f32 	%f19, %f17, %f18;
	st.global.f32 	[%rd2+32], %f19;
	ret;
}
)");

TEST(Contraction, EveryReaderAndEveryBlockAsPtxasSawThem)
{
    const auto m = wl::ptx::Module::parse(kShapes, "shapes.ptx");
    wl::emu::Emulator emu;
    auto* in = emu.alloc<std::uint32_t>(1);
    in[0] = 0x3F800800u;  // a
    auto* out = emu.alloc<std::uint32_t>(9);
    wl::ptx::launch(emu, m, "shapes", dim3(1), dim3(1), 0, in, out);
    const std::uint32_t once = 0x3A000400u, twice = 0x3A000000u;
    const std::uint32_t expected[9] = {once, once, twice, once, once, twice, once, once, twice};
    for (int i = 0; i < 9; ++i) EXPECT_EQ(out[i], expected[i]) << "shape " << i;
}

// Differential kernel 7591 (seed 1): `f0 = f3 * f2 + 100.0f`, which nvcc made
// a mul before a call of order_pair and an add in the else block of a later
// `if (lane < 9)`, both operands registers: ptxas kept FMUL and FADD. Thread
// 41: f3 = 0xBF3EFD9B = -12516763 * 2^-24, f2 = 0x4CD59C52 = 13999186 * 2^3;
// the product, -83553549.459 (in [2^26, 2^27), where floats are 8 apart),
// rounds to -83553552, and + 100 gives -83553452, a tie between -83553456
// (0xCC9F5D96, the even) and -83553448: 0xCC9F5D96, the H100's word. Rounded
// once, -83553449.459 is nearest -83553448 (0xCC9F5D95).
const std::string k7591 = ptx_module(std::string(kKept) + R"(
.visible .entry pair_7591(.param .u64 p_in, .param .u64 p_out)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<6>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [p_in];
	ld.param.u64 	%rd2, [p_out];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f3, [%rd1];
	ld.global.f32 	%f2, [%rd1+4];
	mul.f32 	%f4, %f3, %f2;)" + kCallKept + R"(
	setp.lt.u32 	%p1, %r1, 9;
	@%p1 bra 	$L_low;
	bra.uni 	$L_high;
$L_low:
	mov.f32 	%f5, 0f42C80000;
	bra.uni 	$L_join;
$L_high:
	add.f32 	%f5, %f4, 0f42C80000;
$L_join:
	st.global.f32 	[%rd4], %f5;
	ret;
}
)");

TEST(Contraction, Kernel7591sPairApartAcrossACallAndABranchGivesTheH100sWord)
{
    const auto m = wl::ptx::Module::parse(k7591, "k7591.ptx");
    wl::emu::Emulator emu;
    auto* in = emu.alloc<std::uint32_t>(2);
    in[0] = 0xBF3EFD9Bu;  // f3
    in[1] = 0x4CD59C52u;  // f2
    auto* out = emu.alloc<std::uint32_t>(1024);
    wl::ptx::launch(emu, m, "pair_7591", dim3(1), dim3(64), 0, in, out);
    EXPECT_EQ(out[41], 0xCC9F5D96u);
    EXPECT_EQ(out[0], 0x42C80000u);  // lanes below 9: 100
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
