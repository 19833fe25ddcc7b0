// Hopper's bulk copy engine (cp.async.bulk) and mbarriers on the emulator:
// bytes arrive where and when they should, waits wait, and each misuse stops
// the launch with a report that names the thread and the line. Kernels:
// bulk_copy_kernels.cu (plain CUDA using reduction v10's helpers), compiled
// by nvcc; every case under both schedules.
#include <gtest/gtest.h>

#include <numeric>

#include "emulator/helpers.h"
#include "emulator/ptx_modules.h"

namespace warplab::test {
namespace {

constexpr const char* kKernels = "tests/emulator/bulk_copy_kernels.cu";
constexpr const char* kHelpers = "kernels/reduction/10_bulk_copy.cuh";  // where the asm of v10's helpers is
constexpr unsigned kPieceInts = 256;                                    // the kernels' 1 KB pieces

const wl::ptx::Module& bulk_module()
{
    static const wl::ptx::Module module = [] {
        wl::ptx::CompileOptions opt = project_options();
        opt.include_dirs.push_back(WARPLAB_SOURCE_DIR);
        const wl::ptx::CompiledPtx ptx = wl::ptx::compile_file(project_file(kKernels), opt);
        return wl::ptx::Module::parse(ptx.text, ptx.origin);
    }();
    return module;
}

template <class... A> void run(Emulator& emu, const char* kernel, dim3 block, const A&... args)
{
    wl::ptx::launch(emu, bulk_module(), kernel, dim3(1), block, 0, args...);
}

std::string site_of(const std::string& marker)
{
    return base_name(kKernels) + ":" + std::to_string(marker_line(project_file(kKernels), "FAULT(" + marker + ")"));
}

// A fault at an asm statement of v10's helpers: that file, a line of the
// statement holding `text` (nvcc marks an asm statement with the line of one
// of its operands: its first line to its fourth), the kernel, and the phrases.
void expect_in_helper(const KernelFault& f, const std::string& kernel, std::optional<uint3> thread,
                      const std::string& text, const std::vector<std::string>& phrases)
{
    const std::string message = f.what();
    SCOPED_TRACE("fault message: " + message);
    const unsigned first = marker_line(project_file(kHelpers), text);
    EXPECT_EQ(f.fault.kernel, kernel);
    if (thread) EXPECT_TRUE(contains(message, triple("thread", *thread)));
    EXPECT_EQ(f.fault.file, kHelpers);
    EXPECT_GE(f.fault.line, first);
    EXPECT_LE(f.fault.line, first + 3);
    EXPECT_TRUE(contains(message, base_name(kHelpers) + ":" + std::to_string(f.fault.line)));
    for (const std::string& phrase : phrases) EXPECT_TRUE(contains(message, phrase)) << "missing: " << phrase;
}

class BulkCopyTest : public ::testing::TestWithParam<Schedule> {
protected:
    void SetUp() override
    {
        WL_SKIP_WITHOUT_NVCC();
        emu.options.schedule = GetParam();
    }
    Emulator emu;
};

TEST_P(BulkCopyTest, PiecesPassThroughAOneSlotRingInOrder)
{
    // 5 pieces of 256 ints, in[i] = 3i + 1 (seeded by nothing: every value
    // distinct, so a piece landing in the wrong place or twice shows). 96
    // threads: the copies come from thread 95, in warp 2, so warps 0 and 1
    // reach each wait before the copy is issued and must wait for it;
    // out must equal in exactly.
    const unsigned pieces = 5;
    std::vector<int> host(pieces * kPieceInts);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>(3 * i + 1);
    int* in = to_device(emu, host);
    int* out = zeros<int>(emu, host.size());
    ASSERT_NO_THROW(run(emu, "copy_through_ring", dim3(96), in, out, pieces));
    EXPECT_EQ(to_host(emu, out, host.size()), host);
    // Again with the wait in a called function: the lanes run on fibers.
    int* again = zeros<int>(emu, host.size());
    ASSERT_NO_THROW(run(emu, "copy_through_ring_called", dim3(96), in, again, pieces));
    EXPECT_EQ(to_host(emu, again, host.size()), host);
}

TEST_P(BulkCopyTest, AReadBeforeTheWaitIsCaught)
{
    // Thread 0 issues the copy, then a __syncthreads(): a barrier does not
    // wait for the copy engine, so ring[t] is read before it has landed.
    int* in = to_device(emu, std::vector<int>(kPieceInts, 7));
    int* out = zeros<int>(emu, 64);
    auto f = fault_of([&] { run(emu, "read_before_wait", dim3(64), in, out); });
    ASSERT_TRUE(f) << "the read of a slot whose copy has not landed must fault";
    expect_report(*f, ExpectedFault{"read_before_wait", {0, 0, 0}, std::nullopt, project_file(kKernels),
                                    "FAULT(read_before_wait)",
                                    {"a bulk copy has not filled yet", "ring[", "thread (0,0,0)", "mbarrier"}});
}

TEST_P(BulkCopyTest, AWaitNoArrivalCanEndIsADeadlock)
{
    // mbarrier 2 of 4 expects one arrival that no thread makes: every thread
    // waits for ever. The report names the mbarrier, landed[2] (bytes 16-23:
    // counted in 8-byte elements although the kernel's other shared variable
    // is of 4-byte ints), and what it still expects (1 arrival, 0 bytes), at
    // the try_wait in v10's wait_landed().
    int* out = zeros<int>(emu, 64);
    auto f = fault_of([&] { run(emu, "wait_never_armed", dim3(64), out); });
    ASSERT_TRUE(f) << "a wait that can never end must fault, not hang";
    expect_in_helper(*f, "wait_never_armed", std::nullopt, "mbarrier.try_wait",
                     {"mbarrier deadlock", "landed[2]", "1 arrival and 0 bytes"});
}

TEST_P(BulkCopyTest, ARefillWhileOthersReadIsARace)
{
    // 64 threads. After the first piece lands, warp 0 reads ring[0..31] and
    // goes on to wait for the second piece; then warp 1 runs (warps take
    // turns in order under both schedules) and thread 63 refills the slot
    // with no __syncthreads() after warp 0's reads. The first word the copy
    // overwrites, ring[0], was read by thread 0: the report names it, its
    // line, and the copy's line in v10's bulk_copy().
    std::vector<int> host(2 * kPieceInts);
    std::iota(host.begin(), host.end(), 0);
    int* in = to_device(emu, host);
    int* out = zeros<int>(emu, 64);
    auto f = fault_of([&] { run(emu, "refill_without_barrier", dim3(64), in, out); });
    ASSERT_TRUE(f) << "overwriting a slot other threads read in the same interval must fault";
    expect_in_helper(*f, "refill_without_barrier", uint3{63, 0, 0}, "cp.async.bulk.shared",
                     {"data race", "the bulk copy issued here overwrites ring[0]", "read by thread (0,0,0)",
                      site_of("refill_reads")});
}

TEST_P(BulkCopyTest, ACopyOfAnOddSizeIsRefused)
{
    // 24 bytes: not a multiple of 16.
    int* in = to_device(emu, std::vector<int>(kPieceInts, 1));
    int* out = zeros<int>(emu, 64);
    auto f = fault_of([&] { run(emu, "copy_odd_size", dim3(64), in, out); });
    ASSERT_TRUE(f);
    expect_in_helper(*f, "copy_odd_size", uint3{0, 0, 0}, "cp.async.bulk.shared", {"24 bytes", "multiple of 16"});
}

TEST_P(BulkCopyTest, AWaitOnAnUninitialisedMbarrierIsCaught)
{
    int* out = zeros<int>(emu, 32);
    auto f = fault_of([&] { run(emu, "wait_uninitialised", dim3(32), out); });
    ASSERT_TRUE(f);
    expect_in_helper(*f, "wait_uninitialised", std::nullopt, "mbarrier.try_wait",
                     {"uninitialised shared memory", "landed[0]"});
}

INSTANTIATE_TEST_SUITE_P(Schedules, BulkCopyTest, ::testing::Values(Schedule::Independent, Schedule::Lockstep),
                         [](const auto& info) { return std::string(wl::emu::to_string(info.param)); });

}  // namespace
}  // namespace warplab::test
