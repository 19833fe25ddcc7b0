// Which launch a GPU error follows from (core/src/cudart/gpu_faults.h), without
// a GPU: the launches given to it since it last finished without an error
// are the ones a sticky error (an illegal address) is named after.
#include <gtest/gtest.h>

#include <string>

#include "gpu_faults.h"

namespace {

using wl::cudart::gpu::LaunchFaults;
using wl::cudart::gpu::LaunchSite;

LaunchSite site(unsigned index, const std::string& kernel, unsigned blocks, unsigned threads)
{
    LaunchSite s;
    s.record.index = index;
    s.record.kernel = kernel;
    s.record.grid[0] = blocks;
    s.record.block[0] = threads;
    return s;
}

// The host line a launch was made at: here by its index, "prog.cu:(30 + index)"; launch 9's unknown.
LaunchFaults faults()
{
    return LaunchFaults([](const LaunchSite& s) { return s.record.index == 9 ? "" : "prog.cu:" + std::to_string(30 + s.record.index); });
}

const std::string kIllegal = "cudaErrorIllegalAddress (an illegal memory access was encountered)";

// Launch 1 finished; launch 2 is the one pending when the GPU reports the
// error: the paragraph names it, its grid and block and its line (32), once.
TEST(GpuFaults, AnErrorIsNamedAfterTheLaunchPendingWhenTheGpuReportedIt)
{
    LaunchFaults f = faults();
    f.launched(site(1, "scale", 4, 128));
    f.finished();
    f.launched(site(2, "scatter", 4, 128));
    EXPECT_EQ(f.pending(), std::vector<unsigned>{2});
    const std::string said = f.blame(kIllegal);
    EXPECT_NE(said.find("warplab: the GPU reported " + kIllegal +
                        " after launch 2: kernel scatter, grid (4,1,1), block (128,1,1), launched at prog.cu:32\n"),
              std::string::npos)
        << said;
    EXPECT_EQ(said.find("launch 1"), std::string::npos) << said;
    EXPECT_NE(said.find("on the emulator"), std::string::npos) << said;
    EXPECT_EQ(f.blame(kIllegal), "");  // a sticky error comes back at every call: said once
}

// Launches 3 and 4 given without a wait between them: either may have
// faulted, and the paragraph says so, listing both; a launch whose line is
// unknown (9) is named without one.
TEST(GpuFaults, LaunchesRunWithoutAWaitAreAllNamed)
{
    LaunchFaults f = faults();
    f.launched(site(3, "pass<256>", 196, 256));
    f.launched(site(4, "pass<256>", 1, 256));
    const std::string said = f.blame(kIllegal);
    EXPECT_NE(said.find("after one of launches 3 to 4, which ran without a wait between them:\n"
                        "  launch 3: kernel pass<256>, grid (196,1,1), block (256,1,1), launched at prog.cu:33\n"
                        "  launch 4: kernel pass<256>, grid (1,1,1), block (256,1,1), launched at prog.cu:34\n"),
              std::string::npos)
        << said;
    LaunchFaults unknown = faults();
    unknown.launched(site(9, "k", 1, 32));
    const std::string unnamed = unknown.blame(kIllegal);
    EXPECT_NE(unnamed.find("after launch 9: kernel k, grid (1,1,1), block (32,1,1)\n"), std::string::npos) << unnamed;
}

// An error with no launch pending (a failed copy, say) is no kernel's.
TEST(GpuFaults, NothingPendingNamesNoLaunch)
{
    LaunchFaults f = faults();
    EXPECT_EQ(f.blame(kIllegal), "");
    f.launched(site(1, "scale", 4, 128));
    f.finished();
    EXPECT_EQ(f.blame(kIllegal), "");
    EXPECT_TRUE(f.pending().empty());
}

}  // namespace
