// The AMD blog's barrier-free 64-thread tail (tests/cli/kernels/wavefront_tail.cu,
// run in place of reduction v3 through the lab, as `warplab trace --file` runs
// it) at warp widths 32 and 64, under both schedules.
//
// n = 4099 seeded ints, block 256: 17 blocks, the last with 3 elements, then a
// second pass over the 17 sums. The lab checks the result against its host sum.
// - width 64, lockstep: threads 0-63 are one warp whose lanes do each access
//   together (all read s[t + k], then all write s[t]), as a wavefront does:
//   the tail is right.
// - width 32: threads 0-31 and 32-63 are two warps; in the first round thread
//   0 reads s[32], which thread 32 of the other warp writes, with no barrier
//   between: a data race, under either schedule.
// - width 64, independent: one warp, but its lanes run in any order between
//   synchronisations (as on Volta and later): thread t's read of s[t + 32]
//   and thread t + 32's write of it are unordered, so a race as well. One 64-wide
//   wavefront is no promise on NVIDIA since Volta.
// barrier_tail (a __syncthreads() between each round's reads and writes) is
// right in all four; syncwarp_tail is refused at 64 (its PTX mask is 32 bits).
// About a second in all once nvcc's output is cached (the first compile adds a few).
#include <gtest/gtest.h>

#include <string>

#include "emulator/helpers.h"
#include "warplab/ptx/ptx.h"

namespace warplab::test {
namespace {

constexpr const char* kFile = "tests/cli/kernels/wavefront_tail.cu";

RunResult run_tail(const std::string& kernel, unsigned width, Schedule schedule)
{
    RunRequest req = emulator_request("v3", 4099, 256, "int", schedule, 5);
    req.file = std::string(WARPLAB_SOURCE_DIR) + "/" + kFile;
    req.kernel = kernel;
    req.warp_width = width;
    return reduction_lab().run(req);
}

// The fault a run raises; "" when it finished.
std::string fault_of(const std::string& kernel, unsigned width, Schedule schedule)
{
    try {
        run_tail(kernel, width, schedule);
    } catch (const KernelFault& f) {
        return f.what();
    }
    return "";
}

class WavefrontTail : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc (the CUDA toolkit) for a --file kernel";
    }
};

TEST_F(WavefrontTail, IsRightInOneLockstepWavefrontOf64)
{
    const RunResult r = run_tail("wavefront_tail", 64, Schedule::Lockstep);
    EXPECT_TRUE(r.ok) << r.value << " != " << r.expected;
    EXPECT_EQ(r.warp_width, 64u);
    EXPECT_EQ(r.backend, "cpu emulator (lockstep, emulated 64-wide wavefront)");
}

TEST_F(WavefrontTail, IsARaceAcrossTheTwoWarpsOf32UnderBothSchedules)
{
    for (Schedule schedule : kSchedules) {
        const std::string fault = fault_of("wavefront_tail", 32, schedule);
        EXPECT_NE(fault.find("data race on shared memory"), std::string::npos) << schedule_name(schedule) << ": " << fault;
        EXPECT_NE(fault.find("wavefront_tail.cu:"), std::string::npos) << fault;
    }
}

TEST_F(WavefrontTail, IsARaceInOne64LaneWarpUnderTheIndependentSchedule)
{
    const std::string fault = fault_of("wavefront_tail", 64, Schedule::Independent);
    EXPECT_NE(fault.find("data race on shared memory"), std::string::npos) << fault;
}

TEST_F(WavefrontTail, WithBarriersItIsRightAtBothWidthsUnderBothSchedules)
{
    for (unsigned width : {32u, 64u})
        for (Schedule schedule : kSchedules) {
            const RunResult r = run_tail("barrier_tail", width, schedule);
            EXPECT_TRUE(r.ok) << "width " << width << ", " << schedule_name(schedule) << ": " << r.value << " != " << r.expected;
        }
}

TEST_F(WavefrontTail, A32BitSyncwarpMaskIsRefusedAt64)
{
    // __syncwarp() is bar.warp.sync with the 32-bit mask 0xffffffff: which 32 of the 64 lanes?
    const std::string fault = fault_of("syncwarp_tail", 64, Schedule::Independent);
    EXPECT_NE(fault.find("__syncwarp with the 32-bit mask 0xffffffff in a 64-lane warp"), std::string::npos) << fault;
    // At 32 it orders its own warp only: the tail still reads across to the other one.
    EXPECT_NE(fault_of("syncwarp_tail", 32, Schedule::Independent).find("data race"), std::string::npos);
}

TEST(WarpWidthRequest, OtherWidthsAndTheGpuAt64AreRefusedInOneLine)
{
    RunRequest req = emulator_request("v1", 1000, 256, "int", Schedule::Independent);
    req.warp_width = 48;
    try {
        reduction_lab().run(req);
        ADD_FAILURE() << "warp width 48 ran";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "warp size 48: a warp is 32 lanes (NVIDIA's) or 64 (an emulated AMD wavefront)");
    }
    req.warp_width = 64;
    req.backend = BackendChoice::Gpu;
    try {
        reduction_lab().run(req);
        ADD_FAILURE() << "warp width 64 ran on the GPU";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("runs on the emulator only"), std::string::npos) << e.what();
    }
    // Auto picks the emulator, the only backend with 64 lanes, GPU or not.
    req.backend = BackendChoice::Auto;
    const RunResult r = reduction_lab().run(req);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.warp_width, 64u);
}

}  // namespace
}  // namespace warplab::test
