// Cooperative launches through the C++ API (LaunchOptions::cooperative):
// every block resident at once, cooperative groups' grid.sync() as a barrier
// of the whole grid, under both schedules; a grid that waits forever and a
// grid sync in a launch that is not cooperative are faults, never a hang.
#include <gtest/gtest.h>

#include "emulator/helpers.h"
#include "emulator/ptx_modules.h"
#include "warplab/ptx/ptx.h"

namespace warplab::test {
namespace {

constexpr const char* kKernels = "tests/emulator/grid_sync_kernels.cu";

class GridSync : public ::testing::TestWithParam<Schedule> {
protected:
    void SetUp() override
    {
        WL_SKIP_WITHOUT_NVCC();
        emu.options.schedule = GetParam();
        emu.options.record = false;
    }
    Emulator emu;
};

// 7 blocks of 64 threads (an odd grid), 5 phases from x[b] = b: x[b] = (b + 5) % 7 + 5
// = {10, 11, 5, 6, 7, 8, 9}, in `back` (phase p writes back when p is even; the last is p = 4).
// A missing barrier would let block 0 run all its phases before block 1 starts.
TEST_P(GridSync, PhasesSeeEveryBlocksWrites)
{
    const int blocks = 7, phases = 5;
    std::vector<int> start(blocks);
    for (int b = 0; b < blocks; ++b) start[b] = b;
    int* front = to_device(emu, start);
    int* back = zeros<int>(emu, blocks);
    emu.options.cooperative = true;
    wl::ptx::launch(emu, module_of(kKernels), "rotate_phases", dim3(blocks), dim3(64), 0, front, back, phases);
    EXPECT_EQ(to_host(emu, back, blocks), (std::vector<int>{10, 11, 5, 6, 7, 8, 9}));
    // Run again: the barrier's workspace starts from zero at each launch.
    std::vector<int> again(start);
    emu.copy_to_device(front, again.data(), blocks);
    wl::ptx::launch(emu, module_of(kKernels), "rotate_phases", dim3(blocks), dim3(64), 0, front, back, phases);
    EXPECT_EQ(to_host(emu, back, blocks), (std::vector<int>{10, 11, 5, 6, 7, 8, 9}));
}

// Blocks 0, 2 and 3 wait at the grid barrier that block 1 never reaches: the
// launch stops with a fault at block 0's grid.sync() line.
TEST_P(GridSync, ABlockThatSkipsTheBarrierIsAFaultNotAHang)
{
    int* out = zeros<int>(emu, 4);
    emu.options.cooperative = true;
    const auto f = fault_of([&] { wl::ptx::launch(emu, module_of(kKernels), "one_block_skips", dim3(4), dim3(32), 0, out); });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"one_block_skips", uint3{0, 0, 0}, uint3{0, 0, 0}, project_file(kKernels), "MARK(skipped sync)",
                                    {"waits in a spin loop that no block will end", "grid.sync() that some block does not reach"}});
}

// Without a cooperative launch the kernel has no grid barrier (its workspace
// address is 0): cooperative groups trap in grid.sync(), as on a GPU (every
// thread does; the schedule picks which is first), and the fault says why.
TEST_P(GridSync, AGridSyncInALaunchThatIsNotCooperativeIsAFault)
{
    int* front = zeros<int>(emu, 3);
    int* back = zeros<int>(emu, 3);
    const auto f = fault_of([&] { wl::ptx::launch(emu, module_of(kKernels), "rotate_phases", dim3(3), dim3(32), 0, front, back, 2); });
    ASSERT_TRUE(f);
    expect_report(*f, ExpectedFault{"rotate_phases", uint3{0, 0, 0}, std::nullopt, project_file(kKernels), "MARK(phase sync)",
                                    {"a launch that is not cooperative", "cudaLaunchCooperativeKernel"}});
}

INSTANTIATE_TEST_SUITE_P(Schedules, GridSync, ::testing::ValuesIn(kSchedules), ScheduleParamName());

}  // namespace
}  // namespace warplab::test
