// Each fault stops the launch with a KernelFault that names the kernel, the
// block, the thread, the file:line of the faulty access in the user's .cu file
// and what happened. The kernels are plain CUDA (faulty_kernels.cu, each
// faulty line marked FAULT(name)), compiled by nvcc and run by the PTX
// interpreter. Every case runs under both schedules: where a fault is
// reported must not depend on the lane order.
#include <gtest/gtest.h>

#include <numeric>

#include "emulator/helpers.h"
#include "emulator/ptx_modules.h"

namespace warplab::test {
namespace {

constexpr const char* kFaultyKernels = "tests/emulator/faulty_kernels.cu";

const wl::ptx::Module& faulty_module() { return module_of(kFaultyKernels); }

template <class... A> void run(Emulator& emu, const char* kernel, dim3 grid, dim3 block, const A&... args)
{
    wl::ptx::launch(emu, faulty_module(), kernel, grid, block, 0, args...);
}

// The marker's line in faulty_kernels.cu, as "faulty_kernels.cu:<line>".
std::string site_of(const std::string& marker)
{
    return base_name(kFaultyKernels) + ":" + std::to_string(marker_line(project_file(kFaultyKernels), "FAULT(" + marker + ")"));
}

// What every report must say, and that its file is the user's, as the project names it.
void expect_fault(const KernelFault& f, const std::string& kernel, uint3 block, std::optional<uint3> thread,
                  const std::string& marker, std::vector<std::string> phrases)
{
    expect_report(f, ExpectedFault{kernel, block, thread, project_file(kFaultyKernels), "FAULT(" + marker + ")",
                                   std::move(phrases)});
    EXPECT_EQ(f.fault.file, kFaultyKernels) << "the path relative to the project, not nvcc's temporary copy";
}

class FaultTest : public ::testing::TestWithParam<Schedule> {
protected:
    void SetUp() override
    {
        WL_SKIP_WITHOUT_NVCC();
        emu.options.schedule = GetParam();
    }
    Emulator emu;
};

std::vector<int> iota_ints(std::size_t n)
{
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), 0);
    return v;
}

TEST_P(FaultTest, OutOfBoundsGlobalLoad)
{
    // 2 blocks x 32 threads over 64 elements: thread i reads in[i + 1], so
    // block 1, thread 31 (i = 63) reads in[64], one past the 64 elements.
    int* in = to_device(emu, iota_ints(64));
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { run(emu, "load_past_end", dim3(2), dim3(32), in, out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "load_past_end", {1, 0, 0}, uint3{31, 0, 0}, "load_past_end",
                 {"out-of-bounds load", "[64]", "64 elements"});
}

TEST_P(FaultTest, OutOfBoundsIntoTheNextAllocation)
{
    // 1024 ints fill 4096 bytes, with no slack to round up: on a GPU the next
    // cudaMalloc often starts right there. Four allocations in a row; in[1024]
    // (block 31, thread 31 reads in[i + 1]) is still out of bounds here.
    int* before = emu.alloc<int>(1024);
    int* in = to_device(emu, iota_ints(1024));
    int* out = emu.alloc<int>(1024);
    int* after = emu.alloc<int>(1024);
    (void)before, (void)after;
    auto f = fault_of([&] { run(emu, "load_past_end", dim3(32), dim3(32), in, out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "load_past_end", {31, 0, 0}, uint3{31, 0, 0}, "load_past_end",
                 {"out-of-bounds load", "[1024]", "1024 elements"});
    // in[-1] (block 0, thread 0 reads in[i - 1]) is named as in's, byte -4,
    // not as an element far past the end of `before`, the allocation below it.
    auto g = fault_of([&] { run(emu, "load_before_start", dim3(32), dim3(32), in, out); });
    ASSERT_TRUE(g);
    expect_fault(*g, "load_before_start", {0, 0, 0}, uint3{0, 0, 0}, "load_before_start",
                 {"out-of-bounds load", "argument 0[-1]", "byte -4 of 4096"});
}

TEST_P(FaultTest, OutOfBoundsGlobalStore)
{
    // Same grid; thread i writes out[i + 1]: block 1, thread 31 writes out[64].
    int* in = to_device(emu, iota_ints(64));
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { run(emu, "store_past_end", dim3(2), dim3(32), in, out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "store_past_end", {1, 0, 0}, uint3{31, 0, 0}, "store_past_end",
                 {"out-of-bounds store", "[64]", "64 elements"});
}

TEST_P(FaultTest, OutOfBoundsSharedIndex)
{
    // One block of 64 threads, tile of 64: thread 63 writes tile[64].
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { run(emu, "shared_index_past_end", dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "shared_index_past_end", {0, 0, 0}, uint3{63, 0, 0}, "shared_index_past_end",
                 {"out-of-bounds shared store", "tile[64]", "64 elements"});
}

TEST_P(FaultTest, BarrierDivergenceBetweenBranches)
{
    // Threads 0..31 wait at the first __syncthreads(), 32..63 at the second.
    // The report is made at the first waiting thread (0) and names the first
    // thread waiting elsewhere (32) with that barrier's line.
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { run(emu, "barrier_in_both_branches", dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "barrier_in_both_branches", {0, 0, 0}, uint3{0, 0, 0}, "barrier_first_branch",
                 {"barrier divergence", "thread (32,0,0)", site_of("barrier_second_branch")});
}

TEST_P(FaultTest, EarlyReturnBeforeBarrier)
{
    // Thread 40 returned; since Volta the barrier waits only for threads that
    // have not exited, so the other 63 pass it, with a warning at the barrier
    // naming thread 40. Then thread 23 reads tile[63 - 23] = tile[40], which
    // thread 40 never wrote: the fault is that read, the first lane of warp 0
    // to make it (lanes 0..22 read tile[63..41], written).
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { run(emu, "early_return_before_barrier", dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "early_return_before_barrier", {0, 0, 0}, uint3{23, 0, 0}, "early_return_read",
                 {"uninitialised shared memory", "tile[40]"});
    const auto warnings = emu.take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0].at.what, "thread (40,0,0) exited before this __syncthreads()")) << warnings[0].at.what;
    EXPECT_EQ(warnings[0].at.line, marker_line(project_file(kFaultyKernels), "WARNING(early_return_barrier)"));
}

TEST_P(FaultTest, DataRaceBetweenWarpsInSharedMemory)
{
    // Both schedules run warp 0 before warp 1 within a barrier interval, so
    // thread 0's write comes first and thread 32's read is the racing access;
    // the report names the write's thread and line too.
    int* out = emu.alloc<int>(1);
    auto f = fault_of([&] { run(emu, "shared_race_between_warps", dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "shared_race_between_warps", {0, 0, 0}, uint3{32, 0, 0}, "race_read",
                 {"data race", "tile[5]", "read here", "written by thread (0,0,0)", site_of("race_write")});
}

TEST_P(FaultTest, DataRaceWithAnEarlierOfTwoReads)
{
    // Warp 0 runs first: thread 0 reads word[0]; then thread 33 reads it and
    // thread 34 writes it after a __syncwarp() that thread 0 did not join.
    // The write races with thread 0's read, whichever read came last.
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { run(emu, "write_after_unsynced_read", dim3(1), dim3(64), out); });
    ASSERT_TRUE(f) << "the write races with thread 0's unordered read";
    expect_fault(*f, "write_after_unsynced_read", {0, 0, 0}, uint3{34, 0, 0}, "write_after_unsynced_read",
                 {"data race", "word[0]", "written here", "read by thread (0,0,0)"});
}

TEST_P(FaultTest, DataRaceNamesTheOtherAccessAtASiteFirstUsedLongBefore)
{
    // Warp 0 runs first in the last interval: thread 3's read through peek
    // comes before thread 40's write, which races with it. peek's line was the
    // block's second site, eight sites on consecutive lines ago (so that it is
    // found in the block's table, not among the sites at hand): the report
    // names that line, not another site of the table.
    int* out = emu.alloc<int>(1);
    auto f = fault_of([&] { run(emu, "race_at_an_early_site", dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "race_at_an_early_site", {0, 0, 0}, uint3{40, 0, 0}, "race_after_many_sites",
                 {"data race", "tile[40]", "written here", "read by thread (3,0,0)", site_of("peek")});
}

TEST_P(FaultTest, ReadOfUninitialisedSharedInAnUnwatchedBlock)
{
    // Three blocks of 32: blocks 0 and 2 fill their tiles and read them back
    // rotated by one; block 1 (not watched: its warp's loads are checked as one
    // batch) reads its unwritten tile. Whichever lane runs first faults: thread
    // t reads tile[(t + 1) % 32]. Blocks 0 and 2 alone read 1..31, 0 each.
    int* out = emu.alloc<int>(96);
    auto f = fault_of([&] { run(emu, "read_unfilled_tile_in_one_block", dim3(3), dim3(32), out, 1u); });
    ASSERT_TRUE(f);
    expect_fault(*f, "read_unfilled_tile_in_one_block", {1, 0, 0}, std::nullopt, "unfilled_tile_read",
                 {"read of uninitialised shared memory: tile[" + std::to_string((f->fault.thread.x + 1) % 32) + "]"});
    ASSERT_NO_THROW(run(emu, "read_unfilled_tile_in_one_block", dim3(3), dim3(32), out, 3u));
    const auto got = to_host(emu, out, 96);
    for (int i = 0; i < 96; ++i) EXPECT_EQ(got[i], (i % 32 + 1) % 32) << i;
}

TEST_P(FaultTest, ReadOfUninitialisedShared)
{
    // Nobody writes the tile; whichever lane runs first reads a poisoned word.
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { run(emu, "read_uninitialised_shared", dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "read_uninitialised_shared", {0, 0, 0}, std::nullopt, "uninitialised_read",
                 {"uninitialised shared memory", "tile["});
}

TEST_P(FaultTest, ShuffleMaskWithoutTheCallingLane)
{
    // Mask 0xaaaaaaaa is the odd lanes; only even lanes call. The first even
    // lane to run faults (which one depends on the schedule).
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { run(emu, "shuffle_mask_without_caller", dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "shuffle_mask_without_caller", {0, 0, 0}, std::nullopt, "shuffle_mask_without_caller",
                 {"__shfl_down_sync", "mask 0xaaaaaaaa", "does not include the calling lane"});
    EXPECT_EQ(f->fault.lane % 2, 0u) << "only even lanes call the shuffle";
}

TEST_P(FaultTest, ShuffleSourceOutsideTheMask)
{
    // Lanes 0..15 shift down by 1 with mask 0xffff: lane 15's source is lane 16.
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { run(emu, "shuffle_source_outside_mask", dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "shuffle_source_outside_mask", {0, 0, 0}, uint3{15, 0, 0}, "shuffle_source_outside_mask",
                 {"__shfl_down_sync", "reads lane 16", "not in the mask"});
}

TEST_P(FaultTest, WarpDeadlockOnExitedLane)
{
    // Lane 3 exited: the full-mask shuffle waits for lanes 0x8. The report is
    // made at the first waiting lane, 0.
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { run(emu, "shuffle_with_exited_lane", dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_fault(*f, "shuffle_with_exited_lane", {0, 0, 0}, uint3{0, 0, 0}, "shuffle_with_exited_lane",
                 {"warp deadlock", "__shfl_sync", "lanes 0x8", "warp 0"});
}

TEST_P(FaultTest, DistinctBytesOfOneWordAreNotARace)
{
    // Threads 0..3 write the four bytes of word 0, and so on: different bytes, no race.
    int* out = emu.alloc<int>(64);
    ASSERT_NO_THROW(run(emu, "neighbour_bytes", dim3(1), dim3(64), out));
    // Thread t reads byte t + 1 (mod 64), which holds t + 1.
    const auto got = to_host(emu, out, 64);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], (t + 1) % 64) << "thread " << t;
}

TEST_P(FaultTest, UnwrittenByteOfAWrittenWordIsUninitialised)
{
    // Thread 0 writes byte 0 of flag's word; thread 1 reads byte 1.
    int* out = emu.alloc<int>(1);
    auto f = fault_of([&] { run(emu, "read_unwritten_neighbour_byte", dim3(1), dim3(32), out, 0u, 1u); });
    ASSERT_TRUE(f);
    expect_fault(*f, "read_unwritten_neighbour_byte", {0, 0, 0}, uint3{1, 0, 0}, "read_unwritten_neighbour_byte",
                 {"read of uninitialised shared memory: flag[1]"});
}

TEST_P(FaultTest, TheWrittenByteItselfReadsBackWithoutFault)
{
    // The same kernel reading byte 0, the one thread 0 wrote: 1, no fault.
    int* out = emu.alloc<int>(1);
    ASSERT_NO_THROW(run(emu, "read_unwritten_neighbour_byte", dim3(1), dim3(32), out, 0u, 0u));
    EXPECT_EQ(to_host(emu, out, 1)[0], 1);
}

TEST_P(FaultTest, CorrectKernelDoesNotFault)
{
    // 3 blocks of 64 over in[i] = i: block b sums 64b .. 64b+63 = 4096b + 2016.
    int* in = to_device(emu, iota_ints(192));
    int* out = emu.alloc<int>(3);
    ASSERT_NO_THROW(run(emu, "well_behaved_block_sum", dim3(3), dim3(64), in, out));
    EXPECT_EQ(to_host(emu, out, 3), (std::vector<int>{2016, 6112, 10208}));
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, FaultTest, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- an instruction the interpreter does not know ----

// A hand-written kernel whose second instruction is not PTX any interpreter
// knows; the .loc before it places it at line 7 of "user.cu".
constexpr const char* kUnknownInstructionPtx = R"(
.version 9.0
.target sm_90
.address_size 64

.visible .entry uses_unknown(
	.param .u64 uses_unknown_param_0
)
{
	.reg .b32 	%r<3>;
	.loc	1 6 0
	mov.u32 	%r1, %tid.x;
	.loc	1 7 0
	frobnicate.b32 	%r2, %r1;
	ret;
}
	.file	1 "user.cu"
)";

TEST(UnsupportedInstruction, IsAKernelFaultNamingTheInstructionAndItsLine)
{
    wl::ptx::Module mod = [] {
        try {
            return wl::ptx::Module::parse(kUnknownInstructionPtx, "unknown.ptx");
        } catch (const wl::ptx::ParseError& e) {
            ADD_FAILURE() << "an unknown opcode should parse and fault at run time: " << e.what();
            throw;
        }
    }();
    Emulator emu;
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { wl::ptx::launch(emu, mod, "uses_unknown", dim3(2), dim3(32), 0, out); });
    ASSERT_TRUE(f);
    SCOPED_TRACE(f->what());
    EXPECT_TRUE(contains(f->what(), "unsupported PTX instruction"));
    EXPECT_TRUE(contains(f->what(), "frobnicate"));
    EXPECT_TRUE(contains(f->what(), "user.cu:7"));
    EXPECT_EQ(f->fault.file, "user.cu");
    EXPECT_EQ(f->fault.line, 7u);
}

// ---- Harris's warp-synchronous tail: racy only where lanes do not run in lockstep ----

constexpr unsigned kTailBlock = 128;  // the block faulty_kernels.cu instantiates the tails for
constexpr unsigned kTailBlocks = 5;
constexpr unsigned kTailN = kTailBlock * kTailBlocks - 37;  // the last block partly filled

// Inputs 1..kTailN rather than seeded random ones, so that every expected sum
// is derived by hand. Block b < 4 sums 128b+1 .. 128b+128 = 16384b + 8256;
// block 4 sums 513..603 = (513 + 603) * 91 / 2 = 50778.
const std::vector<int> kTailPartials{8256, 24640, 41024, 57408, 50778};

// The block partial sums of one launch.
std::vector<int> run_tail(Emulator& emu, const char* kernel)
{
    std::vector<int> host(kTailN);
    std::iota(host.begin(), host.end(), 1);
    int* in = to_device(emu, host);
    int* out = emu.alloc<int>(kTailBlocks);
    run(emu, kernel, dim3(kTailBlocks), dim3(kTailBlock), in, out, kTailN);
    return to_host(emu, out, kTailBlocks);
}

TEST(WarpTail, RacyTailReportsADataRaceUnderIndependent)
{
    // Each lane runs the whole unrolled tail before the next starts, so some
    // lane reads (or overwrites) a word another lane wrote (or read) in the
    // same barrier interval with no __syncwarp() between.
    WL_SKIP_WITHOUT_NVCC();
    Emulator emu;
    emu.options.schedule = Schedule::Independent;
    auto f = fault_of([&] { run_tail(emu, "reduce_racy_warp_tail"); });
    ASSERT_TRUE(f);
    SCOPED_TRACE(f->what());
    EXPECT_TRUE(contains(f->what(), "data race"));
    EXPECT_TRUE(contains(f->what(), "kernel reduce_racy_warp_tail"));
    EXPECT_LT(f->fault.thread.x, 32u) << "only warp 0 runs the tail";
    const std::string path = project_file(kFaultyKernels);
    EXPECT_EQ(f->fault.file, kFaultyKernels);
    EXPECT_GE(f->fault.line, marker_line(path, "FAULT(racy_tail_first)"));
    EXPECT_LE(f->fault.line, marker_line(path, "FAULT(racy_tail_last)"));
}

TEST(WarpTail, RacyTailIsCorrectUnderLockstep)
{
    // In lockstep every lane loads before any lane stores, as the 2007 code assumed.
    WL_SKIP_WITHOUT_NVCC();
    Emulator emu;
    emu.options.schedule = Schedule::Lockstep;
    std::vector<int> partials;
    ASSERT_NO_THROW(partials = run_tail(emu, "reduce_racy_warp_tail"));
    EXPECT_EQ(partials, kTailPartials);
}

class SyncedTail : public ::testing::TestWithParam<Schedule> {};

TEST_P(SyncedTail, IsCorrectWithoutFault)
{
    WL_SKIP_WITHOUT_NVCC();
    Emulator emu;
    emu.options.schedule = GetParam();
    std::vector<int> partials;
    ASSERT_NO_THROW(partials = run_tail(emu, "reduce_synced_warp_tail"));
    EXPECT_EQ(partials, kTailPartials);
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, SyncedTail, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

}  // namespace
}  // namespace warplab::test
