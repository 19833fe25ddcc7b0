// The GPU deadline (warplab/cuda/deadline.h) without a GPU: a `done` that
// never holds stands for a kernel that never finishes, and a deadline of a
// few hundredths of a second for the 30 s one. Only one test here abandons
// the GPU in this process (the exit test does it in a forked child), since
// abandoning lasts for the process.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "warplab/cuda/deadline.h"

namespace {

using namespace wl::cuda;

const auto never_done = [] { return false; };

TEST(GpuDeadline, AWaitThatEndsInTimeReturnsAndAbandonsNothing)
{
    // The work is done at the third poll: the wait returns after exactly three polls.
    int polls = 0;
    past_deadline(PastDeadline::Throw);
    wait_within_deadline([&] { return ++polls == 3; }, "reduce_v1", 5);
    EXPECT_EQ(polls, 3);
    EXPECT_FALSE(gpu_abandoned());
    EXPECT_EQ(gpu_abandoned_reason(), "");
}

TEST(GpuDeadline, ExitModeEndsTheProcessWithExit3AndTheParagraph)
{
    // The CLI's way, and the default: one paragraph on stderr, exit 3, no unwinding.
    EXPECT_EXIT(
        {
            past_deadline(PastDeadline::Exit);
            wait_within_deadline(never_done, "endless_sum", 0.05);
        },
        testing::ExitedWithCode(3),
        "^warplab: kernel fault: the kernel endless_sum did not finish within 0.05 s on the GPU: an endless loop\\? "
        "A GPU kernel has no instruction budget.*run it on the emulator \\(--backend cpu\\)");
}

TEST(GpuDeadline, ThrowModeAbandonsTheGpuAndCarriesTheParagraph)
{
    ASSERT_FALSE(gpu_abandoned());
    EXPECT_EQ(gpu_abandoned_reason(), "");
    past_deadline(PastDeadline::Throw);
    const auto start = std::chrono::steady_clock::now();
    try {
        wait_within_deadline(never_done, "endless_sum (instrumented for the trace)", 0.05);
        FAIL() << "a kernel that never finishes passed the deadline without a word";
    } catch (const GpuDeadlinePassed& e) {
        EXPECT_EQ(e.kernel(), "endless_sum (instrumented for the trace)");
        EXPECT_EQ(std::string(e.what()), deadline_paragraph(e.kernel(), 0.05));
        EXPECT_NE(std::string(e.what()).find("did not finish within 0.05 s on the GPU"), std::string::npos) << e.what();
    }
    // It waited the whole deadline, not less.
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
    EXPECT_TRUE(gpu_abandoned());
    EXPECT_EQ(gpu_abandoned_reason(), "the GPU is still running endless_sum (instrumented for the trace), which ran past "
                                      "its deadline; nothing more runs on it until warplab is restarted");

    // A second kernel past a deadline is reported as itself; the GPU still names the first.
    EXPECT_THROW(wait_within_deadline(never_done, "the warm-up runs", 0.01), GpuDeadlinePassed);
    EXPECT_NE(gpu_abandoned_reason().find("running endless_sum"), std::string::npos) << gpu_abandoned_reason();
}

}  // namespace
