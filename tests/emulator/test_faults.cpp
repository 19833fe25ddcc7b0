// Each fault stops the launch with a KernelFault that names the kernel, the
// block, the thread, the file:line of the faulty access and what happened
// (DESIGN.md §4). Every case runs under both schedules: where a fault is
// reported must not depend on the lane order. The faulty kernels live in
// faulty_kernels.cuh, each faulty line marked FAULT(name).
#include <gtest/gtest.h>

#include <numeric>

#include "emulator/faulty_kernels.cuh"
#include "emulator/helpers.h"

namespace warplab::test {
namespace {

namespace faulty = warplab::test::faulty;

class FaultTest : public ::testing::TestWithParam<Schedule> {
protected:
    FaultTest() { emu.options.schedule = GetParam(); }

    ExpectedFault expected(const std::string& kernel, uint3 block, std::optional<uint3> thread,
                           const std::string& marker, std::vector<std::string> phrases) const
    {
        return ExpectedFault{kernel, block, thread, faulty::source_path(), "FAULT(" + marker + ")", std::move(phrases)};
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
    auto f = fault_of([&] { emu.launch("load_past_end", faulty::load_past_end, dim3(2), dim3(32), in, out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("load_past_end", {1, 0, 0}, uint3{31, 0, 0}, "load_past_end",
                               {"out-of-bounds load", "[64]", "64 elements"}));
}

TEST_P(FaultTest, OutOfBoundsGlobalStore)
{
    // Same grid; thread i writes out[i + 1]: block 1, thread 31 writes out[64].
    int* in = to_device(emu, iota_ints(64));
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { emu.launch("store_past_end", faulty::store_past_end, dim3(2), dim3(32), in, out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("store_past_end", {1, 0, 0}, uint3{31, 0, 0}, "store_past_end",
                               {"out-of-bounds store", "[64]", "64 elements"}));
}

TEST_P(FaultTest, OutOfBoundsSharedIndex)
{
    // One block of 64 threads, tile of 64: thread 63 writes tile[64].
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { emu.launch("shared_index_past_end", faulty::shared_index_past_end, dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("shared_index_past_end", {0, 0, 0}, uint3{63, 0, 0}, "shared_index_past_end",
                               {"out-of-bounds store", "tile[64]", "64 elements"}));
}

TEST_P(FaultTest, BarrierDivergenceBetweenBranches)
{
    // Threads 0..31 wait at the first __syncthreads(), 32..63 at the second.
    // The report is made at the first waiting thread (0) and names the first
    // thread waiting elsewhere (32) with that barrier's line.
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { emu.launch("barrier_in_both_branches", faulty::barrier_in_both_branches, dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    const std::string other = base_name(faulty::source_path()) + ":" +
                              std::to_string(marker_line(faulty::source_path(), "FAULT(barrier_second_branch)"));
    expect_report(*f, expected("barrier_in_both_branches", {0, 0, 0}, uint3{0, 0, 0}, "barrier_first_branch",
                               {"barrier divergence", "thread (32,0,0)", other}));
}

TEST_P(FaultTest, EarlyReturnBeforeBarrier)
{
    // Thread 40 returned; the others wait at the barrier for it forever.
    int* out = emu.alloc<int>(64);
    auto f = fault_of([&] { emu.launch("early_return_before_barrier", faulty::early_return_before_barrier, dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("early_return_before_barrier", {0, 0, 0}, uint3{0, 0, 0}, "early_return_barrier",
                               {"barrier divergence", "thread (40,0,0)", "already exited"}));
}

TEST_P(FaultTest, DataRaceBetweenWarpsInSharedMemory)
{
    // Both schedules run warp 0 before warp 1 within a barrier interval, so
    // thread 0's write comes first and thread 32's read is the racing access;
    // the report names the write's thread and line too.
    int* out = emu.alloc<int>(1);
    auto f = fault_of([&] { emu.launch("shared_race_between_warps", faulty::shared_race_between_warps, dim3(1), dim3(64), out); });
    ASSERT_TRUE(f);
    const std::string write_site = base_name(faulty::source_path()) + ":" +
                                   std::to_string(marker_line(faulty::source_path(), "FAULT(race_write)"));
    expect_report(*f, expected("shared_race_between_warps", {0, 0, 0}, uint3{32, 0, 0}, "race_read",
                               {"data race", "tile[5]", "read here", "written by thread (0,0,0)", write_site}));
}

TEST_P(FaultTest, DataRaceWithAnEarlierOfTwoReads)
{
    // Warp 0 runs first: thread 0 reads word[0]; then thread 33 reads it and
    // thread 34 writes it after a __syncwarp() that thread 0 did not join.
    // The write races with thread 0's read, whichever read came last.
    int* out = emu.alloc<int>(64);
    std::optional<KernelFault> f;
    try {
        emu.launch("write_after_unsynced_read", faulty::write_after_unsynced_read, dim3(1), dim3(64), out);
    } catch (const KernelFault& e) {
        f = e;
    }
    ASSERT_TRUE(f) << "the write races with thread 0's unordered read";
    expect_report(*f, expected("write_after_unsynced_read", {0, 0, 0}, uint3{34, 0, 0}, "write_after_unsynced_read",
                               {"data race", "word[0]", "written here", "read by thread (0,0,0)"}));
}

TEST_P(FaultTest, ReadOfUninitialisedShared)
{
    // Nobody writes the tile; whichever lane runs first reads a poisoned word.
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { emu.launch("read_uninitialised_shared", faulty::read_uninitialised_shared, dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("read_uninitialised_shared", {0, 0, 0}, std::nullopt, "uninitialised_read",
                               {"uninitialised shared memory", "tile["}));
}

TEST_P(FaultTest, ShuffleMaskWithoutTheCallingLane)
{
    // Mask 0xaaaaaaaa is the odd lanes; only even lanes call. The first even
    // lane to run faults (which one depends on the schedule).
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { emu.launch("shuffle_mask_without_caller", faulty::shuffle_mask_without_caller, dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("shuffle_mask_without_caller", {0, 0, 0}, std::nullopt, "shuffle_mask_without_caller",
                               {"__shfl_down_sync", "mask 0xaaaaaaaa", "does not include the calling lane"}));
    EXPECT_EQ(f->fault.lane % 2, 0u) << "only even lanes call the shuffle";
}

TEST_P(FaultTest, ShuffleSourceOutsideTheMask)
{
    // Lanes 0..15 shift down by 1 with mask 0xffff: lane 15's source is lane 16.
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { emu.launch("shuffle_source_outside_mask", faulty::shuffle_source_outside_mask, dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("shuffle_source_outside_mask", {0, 0, 0}, uint3{15, 0, 0}, "shuffle_source_outside_mask",
                               {"__shfl_down_sync", "reads lane 16", "not in the mask"}));
}

TEST_P(FaultTest, WarpDeadlockOnExitedLane)
{
    // Lane 3 exited: the full-mask __syncwarp() waits for lanes 0x8. The
    // report is made at the first waiting lane, 0.
    int* out = emu.alloc<int>(32);
    auto f = fault_of([&] { emu.launch("syncwarp_with_exited_lane", faulty::syncwarp_with_exited_lane, dim3(1), dim3(32), out); });
    ASSERT_TRUE(f);
    expect_report(*f, expected("syncwarp_with_exited_lane", {0, 0, 0}, uint3{0, 0, 0}, "syncwarp_with_exited_lane",
                               {"warp deadlock", "__syncwarp", "lanes 0x8", "warp 0"}));
}

// ---- a correct kernel touches everything the checks watch and passes ----

// Block sum of a 64-thread block: global loads in bounds, shared writes read
// by other warps only after __syncthreads(), one barrier site for all, and a
// full-mask shuffle tree in warp 0.
__global__ void well_behaved_block_sum(wl::in<int> in, wl::out<int> out)
{
    WL_SHARED(int, partial, 2);
    unsigned tid = threadIdx.x;
    int v = in[blockIdx.x * blockDim.x + tid];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % 32 == 0) partial[tid / 32] = v;
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = partial[0] + partial[1];
}

// Each thread writes its own byte, then reads its neighbour's after the
// barrier: 4 threads share each 4-byte word, but no two touch the same byte.
__global__ void neighbour_bytes(wl::out<int> out)
{
    WL_SHARED(unsigned char, flag, 64);
    flag[threadIdx.x] = static_cast<unsigned char>(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = flag[(threadIdx.x + 1) % 64];
}

TEST_P(FaultTest, DistinctBytesOfOneWordAreNotARace)
{
    // Threads 0..3 write the four bytes of word 0, and so on: different bytes, no race.
    int* out = emu.alloc<int>(64);
    ASSERT_NO_THROW(emu.launch("neighbour_bytes", neighbour_bytes, dim3(1), dim3(64), out));
    // Thread t reads byte t + 1 (mod 64), which holds t + 1.
    const auto got = to_host(emu, out, 64);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], (t + 1) % 64) << "thread " << t;
}

// One thread writes byte 0 of a word; another reads byte 1, which nobody wrote.
__global__ void read_unwritten_neighbour_byte(wl::out<int> out)
{
    WL_SHARED(unsigned char, flag, 4);
    if (threadIdx.x == 0) flag[0] = 1;
    __syncthreads();
    if (threadIdx.x == 1) out[0] = flag[1];  // FAULT(read_unwritten_neighbour_byte)
}

TEST_P(FaultTest, UnwrittenByteOfAWrittenWordIsUninitialised)
{
    int* out = emu.alloc<int>(1);
    const auto f = fault_of([&] {
        emu.launch("read_unwritten_neighbour_byte", read_unwritten_neighbour_byte, dim3(1), dim3(32), out);
    });
    ASSERT_TRUE(f);
    EXPECT_NE(std::string(f->what()).find("read of uninitialised shared memory: flag[1]"), std::string::npos) << f->what();
}

TEST_P(FaultTest, CorrectKernelDoesNotFault)
{
    // 3 blocks of 64 over in[i] = i: block b sums 64b .. 64b+63 = 4096b + 2016.
    int* in = to_device(emu, iota_ints(192));
    int* out = emu.alloc<int>(3);
    ASSERT_NO_THROW(emu.launch("well_behaved_block_sum", well_behaved_block_sum, dim3(3), dim3(64), in, out));
    EXPECT_EQ(to_host(emu, out, 3), (std::vector<int>{2016, 6112, 10208}));
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, FaultTest, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- Harris's warp-synchronous tail: racy only where lanes do not run in lockstep ----

constexpr unsigned kTailBlock = 128;
constexpr unsigned kTailBlocks = 5;
constexpr unsigned kTailN = kTailBlock * kTailBlocks - 37;  // the last block partly filled

// Inputs 1..kTailN rather than seeded random ones, so that every expected sum
// is derived by hand. Block b < 4 sums 128b+1 .. 128b+128 = 16384b + 8256;
// block 4 sums 513..603 = (513 + 603) * 91 / 2 = 50778.
const std::vector<int> kTailPartials{8256, 24640, 41024, 57408, 50778};

// The block partial sums of one launch.
template <class Kernel> std::vector<int> run_tail(Emulator& emu, const char* name, Kernel kernel)
{
    std::vector<int> host(kTailN);
    std::iota(host.begin(), host.end(), 1);
    int* in = to_device(emu, host);
    int* out = emu.alloc<int>(kTailBlocks);
    emu.launch(name, kernel, dim3(kTailBlocks), dim3(kTailBlock), in, out, kTailN);
    return to_host(emu, out, kTailBlocks);
}

TEST(WarpTail, RacyTailReportsADataRaceUnderIndependent)
{
    // Each lane runs the whole unrolled tail before the next starts, so some
    // lane reads (or overwrites) a word another lane wrote (or read) in the
    // same barrier interval with no __syncwarp() between.
    Emulator emu;
    emu.options.schedule = Schedule::Independent;
    auto f = fault_of([&] { run_tail(emu, "reduce_racy_warp_tail", faulty::reduce_racy_warp_tail<kTailBlock>); });
    ASSERT_TRUE(f);
    SCOPED_TRACE(f->what());
    EXPECT_TRUE(contains(f->what(), "data race"));
    EXPECT_TRUE(contains(f->what(), "kernel reduce_racy_warp_tail,"));
    EXPECT_LT(f->fault.thread.x, 32u) << "only warp 0 runs the tail";
    const std::string path = faulty::source_path();
    EXPECT_EQ(base_name(f->fault.file), base_name(path));
    EXPECT_GE(f->fault.line, marker_line(path, "FAULT(racy_tail_first)"));
    EXPECT_LE(f->fault.line, marker_line(path, "FAULT(racy_tail_last)"));
}

TEST(WarpTail, RacyTailIsCorrectUnderLockstep)
{
    // In lockstep every lane loads before any lane stores, as the 2007 code assumed.
    Emulator emu;
    emu.options.schedule = Schedule::Lockstep;
    std::vector<int> partials;
    ASSERT_NO_THROW(partials = run_tail(emu, "reduce_racy_warp_tail", faulty::reduce_racy_warp_tail<kTailBlock>));
    EXPECT_EQ(partials, kTailPartials);
}

class SyncedTail : public ::testing::TestWithParam<Schedule> {};

TEST_P(SyncedTail, IsCorrectWithoutFault)
{
    Emulator emu;
    emu.options.schedule = GetParam();
    std::vector<int> partials;
    ASSERT_NO_THROW(partials = run_tail(emu, "reduce_synced_warp_tail", faulty::reduce_synced_warp_tail<kTailBlock>));
    EXPECT_EQ(partials, kTailPartials);
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, SyncedTail, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

}  // namespace
}  // namespace warplab::test
