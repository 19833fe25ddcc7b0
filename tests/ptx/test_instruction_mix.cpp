// The instruction mix the emulator counts (warplab/trace/mix.h): warp
// instructions by class, per warp and step, on hand-written PTX whose counts
// are derived by hand below; under both schedules, which run lanes differently
// (Lockstep returns to the scheduler before each access and resumes at it).
// A kernel compiled by nvcc (a loop of fixed trip count) checks the classes
// that do not depend on how nvcc lays the loop out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>

#include "ptx_test_util.h"
#include "warplab/trace/mix.h"

namespace {

using wl::ptx::testing::ptx_module;
using wl::ptx::Module;
using wl::trace::InstructionClass;

// Each thread sums in[tid]^2 over (tid & 3) + 1 trips, waits at a barrier,
// takes the sine where tid >= 48 and stores the result.
const std::string kMixLoop = ptx_module(R"(
.visible .entry mix_loop(
	.param .u64 mix_loop_param_0,
	.param .u64 mix_loop_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<4>;
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<8>;

	.loc	1 3 0
	ld.param.u64 	%rd1, [mix_loop_param_0];
	ld.param.u64 	%rd2, [mix_loop_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd3, %rd5;
	and.b32 	%r3, %r1, 3;
	add.s32 	%r3, %r3, 1;
	mov.f32 	%f1, 0f00000000;
	mov.u32 	%r2, 0;
$L_loop:
	.loc	1 5 0
	ld.global.f32 	%f2, [%rd6];
	fma.rn.f32 	%f1, %f2, %f2, %f1;
	add.s32 	%r2, %r2, 1;
	setp.lt.u32 	%p1, %r2, %r3;
	@%p1 bra 	$L_loop;
	.loc	1 6 0
	bar.sync 	0;
	.loc	1 7 0
	setp.lt.u32 	%p2, %r1, 48;
	@%p2 bra 	$L_store;
	sin.approx.f32 	%f1, %f1;
$L_store:
	.loc	1 8 0
	add.s64 	%rd7, %rd4, %rd5;
	st.global.f32 	[%rd7], %f1;
	ret;
}
	.file	1 "mix_loop.cu"
)");

// Warp instructions by (warp, epoch, class), from the launch's Mix records.
using Counts = std::map<std::tuple<unsigned, unsigned, InstructionClass>, std::uint64_t>;

Counts mix_of(const std::vector<wl::trace::LaneRecord>& records)
{
    Counts counts;
    for (const auto& r : records)
        if (r.kind == wl::trace::Kind::Mix) counts[{r.thread / 32, r.epoch, static_cast<InstructionClass>(r.array)}] += r.offset;
    return counts;
}

class InstructionMix : public ::testing::TestWithParam<wl::emu::Schedule> {};

// By hand, per warp of 32 lanes (two warps, tid 0..63). Lanes run (tid & 3) + 1
// trips, so every warp has lanes of 1, 2, 3 and 4 trips and issues the loop's
// five instructions 4 times (its longest lane), the last bra included.
// Step 0 (epoch 0, up to and with the barrier):
//   ld.param 2; integer: cvta x2, mul.wide, add.s64, and, add.s32 = 6, plus
//   4 x (add.s32, setp) = 8, so 14; move: mov x3 = 3; ld.global 4; fp32 4 (fma);
//   branch 4 (the loop's bra); barrier 1.
// Step 1 (epoch 1): integer 2 (setp, add.s64); branch 2 (@%p2 bra, ret);
//   st.global 1; special: sin is reached only by lanes 48..63, so warp 1
//   issues it once and warp 0 never, and with it the FMUL that scales
//   MUFU.SIN's argument (fp32 1). (A special function is no instruction a
//   short branch's region is predicated over, so warp 0 issues none.)
TEST_P(InstructionMix, CountsEachWarpsInstructionsByClassAndStep)
{
    const Module m = Module::parse(kMixLoop, "mix_loop.ptx");
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    auto* in = emu.alloc<float>(64);
    auto* out = emu.alloc<float>(64);
    for (int i = 0; i < 64; ++i) in[i] = 0.5f;
    wl::ptx::launch(emu, m, "mix_loop", dim3(1), dim3(64), 0, in, out);
    const Counts c = mix_of(emu.take_records());
    for (unsigned warp : {0u, 1u}) {
        SCOPED_TRACE("warp " + std::to_string(warp));
        EXPECT_EQ((c.at({warp, 0, InstructionClass::LoadParam})), 2u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::Integer})), 14u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::Move})), 3u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::LoadGlobal})), 4u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::Fp32})), 4u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::Branch})), 4u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::Barrier})), 1u);
        EXPECT_EQ((c.at({warp, 1, InstructionClass::Integer})), 2u);
        EXPECT_EQ((c.at({warp, 1, InstructionClass::Branch})), 2u);
        EXPECT_EQ((c.at({warp, 1, InstructionClass::StoreGlobal})), 1u);
    }
    EXPECT_EQ(c.count({0, 1, InstructionClass::Special}), 0u);
    EXPECT_EQ((c.at({1, 1, InstructionClass::Special})), 1u);
    EXPECT_EQ((c.at({1, 1, InstructionClass::Fp32})), 1u);
    // Nothing else: 7 classes in step 0 and 3 in step 1 for both warps, and warp 1's sine and its FMUL.
    EXPECT_EQ(c.size(), 2u * (7 + 3) + 2);
    // A sine of 4 x 0.25 = 1 for tid >= 48 (trips 4 where tid & 3 == 3): the kernel ran as the counts say.
    EXPECT_NEAR(out[51], std::sin(1.0f), 1e-6);
    EXPECT_FLOAT_EQ(out[3], 1.0f);
}

// What ptxas makes of some PTX instructions, as the mix counts them
// (machine_count.h), on one warp of 32 lanes, all in step 0, by hand:
//   ld.param 1; move 1 (mov %tid); conversion 1 (cvt);
//   integer 9: cvta, setp %p1, add.u32, div, rem, div by 3, setp %p2, mul.wide, add.s64;
//   fp32 8: fma 1; the neg stored (not a modifier: its reader is a selp) 1;
//     selp.f32 (an FSEL) 1; ex2.approx.f32 without .ftz 3 (FSETP, two FMULs);
//     the short region's add and mul 2, predicated, although every lane
//     branches around them; the first neg is -x inside the fma: 0; the long
//     region's five adds: 0 (five instructions stay a branch, all lanes skip);
//   special 3: two ex2 and one MUFU.RCP for the divisor %r2 (the rem reuses it;
//     a division by 3 needs none);
//   branch 3 (two bra, ret); st.global 1.
const std::string kMachineRules = ptx_module(R"(
.visible .entry machine_rules(
	.param .u64 machine_rules_param_0
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	.reg .f32 	%f<14>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [machine_rules_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	cvt.rn.f32.u32 	%f1, %r1;
	neg.f32 	%f2, %f1;
	fma.rn.f32 	%f3, %f2, %f1, %f1;
	neg.f32 	%f4, %f3;
	setp.lt.u32 	%p1, %r1, 16;
	selp.f32 	%f5, %f4, %f3, %p1;
	ex2.approx.f32 	%f6, %f5;
	ex2.approx.ftz.f32 	%f7, %f6;
	add.u32 	%r2, %r1, 1;
	div.u32 	%r3, %r1, %r2;
	rem.u32 	%r4, %r1, %r2;
	div.u32 	%r5, %r2, 3;
	setp.lt.u32 	%p2, %r1, 100;
	@%p2 bra 	$L_short;
	add.f32 	%f8, %f7, %f7;
	mul.f32 	%f7, %f8, %f8;
$L_short:
	@%p2 bra 	$L_long;
	add.f32 	%f9, %f7, %f7;
	add.f32 	%f10, %f9, %f9;
	add.f32 	%f11, %f10, %f10;
	add.f32 	%f12, %f11, %f11;
	add.f32 	%f7, %f12, %f12;
$L_long:
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.f32 	[%rd4], %f7;
	ret;
}
)");

TEST_P(InstructionMix, CountsWhatPtxasMakesOfAnInstruction)
{
    const Module m = Module::parse(kMachineRules, "machine_rules.ptx");
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    auto* out = emu.alloc<float>(32);
    wl::ptx::launch(emu, m, "machine_rules", dim3(1), dim3(32), 0, out);
    const Counts c = mix_of(emu.take_records());
    EXPECT_EQ((c.at({0, 0, InstructionClass::LoadParam})), 1u);
    EXPECT_EQ((c.at({0, 0, InstructionClass::Move})), 1u);
    EXPECT_EQ((c.at({0, 0, InstructionClass::Conversion})), 1u);
    EXPECT_EQ((c.at({0, 0, InstructionClass::Integer})), 9u);
    EXPECT_EQ((c.at({0, 0, InstructionClass::Fp32})), 8u);
    EXPECT_EQ((c.at({0, 0, InstructionClass::Special})), 3u);
    EXPECT_EQ((c.at({0, 0, InstructionClass::Branch})), 3u);
    EXPECT_EQ((c.at({0, 0, InstructionClass::StoreGlobal})), 1u);
    EXPECT_EQ(c.size(), 8u);
    // Lane 0 branched past both regions, as every lane: f3 = fma(-0, 0, 0) = 0, f5 = -0 (tid < 16),
    // ex2(-0) = 1, ex2(1) = 2: what PTX computes, whatever the mix counts.
    EXPECT_FLOAT_EQ(out[0], 2.0f);
}

// Not watched, or not asked for: no Mix record.
TEST_P(InstructionMix, NothingIsCountedWhenNotAskedFor)
{
    const Module m = Module::parse(kMixLoop, "mix_loop.ptx");
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    emu.options.count_instructions = false;
    auto* in = emu.alloc<float>(64);
    auto* out = emu.alloc<float>(64);
    wl::ptx::launch(emu, m, "mix_loop", dim3(1), dim3(64), 0, in, out);
    EXPECT_TRUE(mix_of(emu.take_records()).empty());
    emu.options.count_instructions = true;
    emu.options.watched_blocks = {1};  // a block the grid does not have
    wl::ptx::launch(emu, m, "mix_loop", dim3(1), dim3(64), 0, in, out);
    EXPECT_TRUE(mix_of(emu.take_records()).empty());
}

// A grid-stride loop as public code writes it, with its trip count fixed by
// the launch: n = 4096 elements, 2 blocks of 128 threads, so each thread runs
// 4096 / 256 = 16 trips, one fmaf and one load of x and y each (block 0, watched).
// Whatever nvcc does with the loop's integers and branches, the warp issues
// 16 FP32 instructions, 32 global loads and 16 global stores.
const char* kSaxpy = R"(
__global__ void saxpy_loop(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = fmaf(a, x[i], y[i]);
}
)";

TEST_P(InstructionMix, GridStrideLoopIssuesOneFmaAndTwoLoadsATrip)
{
    WL_SKIP_WITHOUT_NVCC();
    const Module m = wl::ptx::testing::compile_module(kSaxpy, "saxpy_loop.cu");
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    constexpr int n = 4096;
    auto* x = emu.alloc<float>(n);
    auto* y = emu.alloc<float>(n);
    for (int i = 0; i < n; ++i) x[i] = y[i] = 1.0f;
    wl::ptx::launch(emu, m, "saxpy_loop", dim3(2), dim3(128), 0, n, 2.0f, x, y);
    const Counts c = mix_of(emu.take_records());
    for (unsigned warp = 0; warp < 4; ++warp) {
        SCOPED_TRACE("warp " + std::to_string(warp));
        EXPECT_EQ((c.at({warp, 0, InstructionClass::Fp32})), 16u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::LoadGlobal})), 32u);
        EXPECT_EQ((c.at({warp, 0, InstructionClass::StoreGlobal})), 16u);
    }
    EXPECT_FLOAT_EQ(y[n - 1], 3.0f);
}

INSTANTIATE_TEST_SUITE_P(Schedules, InstructionMix,
                         ::testing::Values(wl::emu::Schedule::Lockstep, wl::emu::Schedule::Independent),
                         [](const auto& info) { return std::string(wl::emu::to_string(info.param)); });

}  // namespace
