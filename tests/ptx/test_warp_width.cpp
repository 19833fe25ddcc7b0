// The interpreter's side of the warp width, on hand-written PTX (no nvcc
// needed): WARP_SZ, %laneid, %warpid, %nwarpid and the five lane masks follow
// the launch's width, and a warp divides past bit 31 of its masks when it is
// 64 lanes wide. The masks are read with mov.b64 so that all 64 bits show.
#include <gtest/gtest.h>

#include <cstdint>

#include "ptx_test_util.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;
using wl::ptx::Module;

// Each thread writes 10 values: WARP_SZ, %laneid, %warpid, %nwarpid, the masks
// lt, le, eq, ge, gt, and 1 where its lane is 40 or above (else 2).
const std::string kWarpFacts = ptx_module(R"(
.visible .entry warp_facts(
	.param .u64 warp_facts_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<16>;

	ld.param.u64 	%rd1, [warp_facts_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 80;
	add.s64 	%rd4, %rd2, %rd3;
	mov.u32 	%r2, WARP_SZ;
	cvt.u64.u32 	%rd5, %r2;
	st.global.u64 	[%rd4], %rd5;
	mov.u32 	%r3, %laneid;
	cvt.u64.u32 	%rd6, %r3;
	st.global.u64 	[%rd4+8], %rd6;
	mov.u32 	%r4, %warpid;
	cvt.u64.u32 	%rd7, %r4;
	st.global.u64 	[%rd4+16], %rd7;
	mov.u32 	%r5, %nwarpid;
	cvt.u64.u32 	%rd8, %r5;
	st.global.u64 	[%rd4+24], %rd8;
	mov.b64 	%rd9, %lanemask_lt;
	st.global.u64 	[%rd4+32], %rd9;
	mov.b64 	%rd10, %lanemask_le;
	st.global.u64 	[%rd4+40], %rd10;
	mov.b64 	%rd11, %lanemask_eq;
	st.global.u64 	[%rd4+48], %rd11;
	mov.b64 	%rd12, %lanemask_ge;
	st.global.u64 	[%rd4+56], %rd12;
	mov.b64 	%rd13, %lanemask_gt;
	st.global.u64 	[%rd4+64], %rd13;
	setp.ge.u32 	%p1, %r3, 40;
	mov.u64 	%rd14, 1;
	@%p1 bra 	$L__high;
	mov.u64 	%rd14, 2;
$L__high:
	st.global.u64 	[%rd4+72], %rd14;
	ret;
}
)");

constexpr unsigned kThreads = 70;  // not a multiple of either width: the last warp is partial
constexpr unsigned kValues = 10;

// Sets the width the runtime runs warps at; false where it cannot.
bool with_warp_width(wl::emu::Emulator& emu, unsigned width)
{
    emu.options.warp_width = width;
    return true;
}

struct Row {
    unsigned thread;
    std::uint64_t v[kValues];
};

void expect_rows(const std::uint64_t* out, const Row* rows, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        for (unsigned k = 0; k < kValues; ++k)
            EXPECT_EQ(out[rows[i].thread * kValues + k], rows[i].v[k])
                << "thread " << rows[i].thread << " value " << k << " (WARP_SZ, laneid, warpid, nwarpid, lt, le, eq, ge, gt, branch)";
}

// Every thread: lane t mod width, warp t / width, WARP_SZ the width.
void expect_lanes(const std::uint64_t* out, unsigned width)
{
    for (unsigned t = 0; t < kThreads; ++t) {
        EXPECT_EQ(out[t * kValues + 0], width) << t;
        EXPECT_EQ(out[t * kValues + 1], t % width) << t;
        EXPECT_EQ(out[t * kValues + 2], t / width) << t;
        EXPECT_EQ(out[t * kValues + 3], (kThreads + width - 1) / width) << t;
    }
}

class WarpWidth : public ::testing::TestWithParam<wl::emu::Schedule> {};

std::uint64_t* run_facts(wl::emu::Emulator& emu, wl::emu::Schedule schedule)
{
    const Module m = Module::parse(kWarpFacts, "warp_facts.ptx");
    emu.options.schedule = schedule;
    auto* out = emu.alloc<std::uint64_t>(kThreads * kValues);
    for (unsigned i = 0; i < kThreads * kValues; ++i) out[i] = 0xDEAD;
    wl::ptx::launch(emu, m, "warp_facts", dim3(1), dim3(kThreads), 0, out);
    return out;
}

// 32 lanes, 70 threads: 3 warps, the third of 6 lanes. Lane l's masks, by hand:
// lt = 2^l - 1, le = 2^(l+1) - 1, eq = 2^l, ge = 0xFFFFFFFF minus lt, gt = 0xFFFFFFFF minus le.
// Thread 31 (lane 31): lt 0x7FFFFFFF, le 0xFFFFFFFF, eq 0x80000000, ge 0x80000000, gt 0.
// Thread 69 (lane 5 of warp 2): lt 0x1F, le 0x3F, eq 0x20, ge 0xFFFFFFE0, gt 0xFFFFFFC0.
// No lane reaches 40: every branch value is 2.
TEST_P(WarpWidth, ThirtyTwoLanes)
{
    wl::emu::Emulator emu;
    ASSERT_TRUE(with_warp_width(emu, 32));
    const std::uint64_t* out = run_facts(emu, GetParam());
    expect_lanes(out, 32);
    const Row rows[] = {
        {0, {32, 0, 0, 3, 0, 1, 1, 0xFFFFFFFF, 0xFFFFFFFE, 2}},
        {31, {32, 31, 0, 3, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, 0x80000000, 0, 2}},
        {33, {32, 1, 1, 3, 0x1, 0x3, 0x2, 0xFFFFFFFE, 0xFFFFFFFC, 2}},
        {69, {32, 5, 2, 3, 0x1F, 0x3F, 0x20, 0xFFFFFFE0, 0xFFFFFFC0, 2}},
    };
    expect_rows(out, rows, std::size(rows));
}

// 64 lanes, 70 threads: 2 warps, the second of 6 lanes. The masks are 64 bits:
// thread 40 (lane 40): lt 2^40 - 1 = 0xFF'FFFFFFFF, le 2^41 - 1, eq 2^40,
// ge = all ones minus lt = 0xFFFFFF00'00000000, gt = all ones minus le = 0xFFFFFE00'00000000.
// Thread 63: lt 2^63 - 1, le all ones, eq = ge = 2^63, gt 0.
// Lanes 40..63 of warp 0 take the branch (1), past bit 31 of the warp's masks;
// the others (2), thread 69 among them (lane 5 of warp 1).
TEST_P(WarpWidth, SixtyFourLanes)
{
    wl::emu::Emulator emu;
    if (!with_warp_width(emu, 64)) GTEST_SKIP() << "the runtime runs 32-lane warps only (until its 64-lane warps land)";
    const std::uint64_t* out = run_facts(emu, GetParam());
    expect_lanes(out, 64);
    const std::uint64_t all = ~std::uint64_t{0};
    const Row rows[] = {
        {0, {64, 0, 0, 2, 0, 1, 1, all, all - 1, 2}},
        {39, {64, 39, 0, 2, 0x7F'FFFFFFFF, 0xFF'FFFFFFFF, 0x80'00000000, 0xFFFFFF80'00000000, 0xFFFFFF00'00000000, 2}},
        {40, {64, 40, 0, 2, 0xFF'FFFFFFFF, 0x1FF'FFFFFFFF, 0x100'00000000, 0xFFFFFF00'00000000, 0xFFFFFE00'00000000, 1}},
        {63, {64, 63, 0, 2, 0x7FFFFFFF'FFFFFFFF, all, 0x80000000'00000000, 0x80000000'00000000, 0, 1}},
        {69, {64, 5, 1, 2, 0x1F, 0x3F, 0x20, 0xFFFFFFFF'FFFFFFE0, 0xFFFFFFFF'FFFFFFC0, 2}},
    };
    expect_rows(out, rows, std::size(rows));
    for (unsigned t = 0; t < kThreads; ++t) EXPECT_EQ(out[t * kValues + 9], t % 64 >= 40 ? 1u : 2u) << t;
}

INSTANTIATE_TEST_SUITE_P(Schedules, WarpWidth,
                         ::testing::Values(wl::emu::Schedule::Independent, wl::emu::Schedule::Lockstep),
                         [](const auto& info) { return info.param == wl::emu::Schedule::Independent ? "independent" : "lockstep"; });

}  // namespace
