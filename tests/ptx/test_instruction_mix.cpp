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

using wl::ptx::Module;
using wl::trace::InstructionClass;

// Each thread sums in[tid]^2 over (tid & 3) + 1 trips, waits at a barrier,
// takes the sine where tid >= 48 and stores the result.
const char* kMixLoop = R"(
.version 8.0
.target sm_90
.address_size 64

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
)";

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
//   issues it once and warp 0 never.
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
    // Nothing else: 7 classes in step 0 and 3 in step 1 for both warps, and warp 1's sine.
    EXPECT_EQ(c.size(), 2u * (7 + 3) + 1);
    // A sine of 4 x 0.25 = 1 for tid >= 48 (trips 4 where tid & 3 == 3): the kernel ran as the counts say.
    EXPECT_NEAR(out[51], std::sin(1.0f), 1e-6);
    EXPECT_FLOAT_EQ(out[3], 1.0f);
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
