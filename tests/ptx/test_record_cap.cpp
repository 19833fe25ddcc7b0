// The cap on the watched block's records (LaunchOptions::max_record_bytes):
// past it recording stops, the launch runs to its end, and records_cut() says
// so; at or under it nothing is cut. Hand-written PTX (no nvcc needed).
#include <gtest/gtest.h>

#include <cstdint>

#include "ptx_test_util.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;
using wl::ptx::Module;

// Each thread stores its index four times, into four words of its own.
const std::string kFourStores = ptx_module(R"(
.visible .entry four_stores(
	.param .u64 four_stores_param_0
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [four_stores_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r1;
	st.global.u32 	[%rd4+4], %r1;
	st.global.u32 	[%rd4+8], %r1;
	st.global.u32 	[%rd4+12], %r1;
	ret;
}
)");

constexpr unsigned kThreads = 37;  // a warp and 5 lanes
// By hand: 37 threads × 4 stores = 148 records of the one (watched) block.
constexpr std::size_t kRecords = 148;

struct CappedRun {
    std::size_t records = 0;
    bool cut = false;
    bool all_written = true;  // every thread's four words hold its index
};

CappedRun run_with_cap(std::uint64_t cap_bytes)
{
    const Module m = Module::parse(kFourStores, "four_stores.ptx");
    wl::emu::Emulator emu;
    emu.options.max_record_bytes = cap_bytes;
    emu.options.count_instructions = false;  // the block's Mix records (instruction mix) would share the cap
    auto* out = emu.alloc<std::uint32_t>(kThreads * 4);
    wl::ptx::launch(emu, m, "four_stores", dim3(1), dim3(kThreads), 0, out);
    CappedRun r;
    r.cut = emu.records_cut();
    r.records = emu.take_records().size();
    for (unsigned i = 0; i < kThreads * 4; ++i) r.all_written = r.all_written && out[i] == i / 4;
    return r;
}

constexpr std::uint64_t bytes_of(std::size_t records) { return records * sizeof(wl::trace::LaneRecord); }

TEST(RecordCap, NothingIsCutAtOrUnderTheCap)
{
    const CappedRun roomy = run_with_cap(wl::emu::LaunchOptions{}.max_record_bytes);
    EXPECT_EQ(roomy.records, kRecords);
    EXPECT_FALSE(roomy.cut);
    const CappedRun exact = run_with_cap(bytes_of(kRecords));  // 148 records fit exactly
    EXPECT_EQ(exact.records, kRecords);
    EXPECT_FALSE(exact.cut);
    EXPECT_TRUE(exact.all_written);
}

// One record short of room, and 50: recording stops at the cap (147, 50
// records kept), the cut is reported, and the kernel still writes every word.
TEST(RecordCap, PastTheCapRecordingStopsAndTheLaunchFinishes)
{
    const CappedRun short_by_one = run_with_cap(bytes_of(kRecords - 1));
    EXPECT_EQ(short_by_one.records, kRecords - 1);
    EXPECT_TRUE(short_by_one.cut);
    EXPECT_TRUE(short_by_one.all_written);
    const CappedRun fifty = run_with_cap(bytes_of(50) + sizeof(wl::trace::LaneRecord) / 2);  // half a record more rounds down
    EXPECT_EQ(fifty.records, 50u);
    EXPECT_TRUE(fifty.cut);
    EXPECT_TRUE(fifty.all_written);
}

}  // namespace
