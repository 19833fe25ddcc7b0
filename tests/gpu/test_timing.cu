// gpu: the bench's timer (warplab/cuda/timing.h): the launch gate keeps the
// host's time out of a run's, runs timed in turns keep their own times, and a
// run that waits for the GPU inside gets slow samples, not a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "warplab/cuda/timing.h"

namespace {

using namespace std::chrono_literals;
using wl::cuda::Timing;

#define REQUIRE_CUDA_GPU()                                                                             \
    do {                                                                                               \
        int devices = 0;                                                                               \
        if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) GTEST_SKIP() << "no GPU: none found"; \
    } while (0)

// One thread busy for `ns` nanoseconds of the GPU's global timer.
__global__ void spin_for(unsigned long long ns)
{
    unsigned long long start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

TEST(GpuTiming, HostTimeBeforeTheLaunchIsNotCounted)
{
    REQUIRE_CUDA_GPU();
    // The run sleeps 2 ms on the host, then launches 100 µs of spinning. With
    // the gate the GPU starts the flush and the start event only once the
    // kernel is queued, so a sample is the kernel's 100 µs plus a launch's few
    // µs. Without it the GPU would finish the flush (tens of µs) and record
    // the start event while the host still sleeps, and every sample would be
    // about 2.1 ms. 0.5 ms lies between the two.
    const Timing t = wl::cuda::time_runs(
        [] {
            std::this_thread::sleep_for(2ms);
            spin_for<<<1, 1>>>(100'000);
        },
        false, 1.0, 1);
    EXPECT_GE(t.min_ms, 0.1);  // the kernel itself is in the timing
    EXPECT_LT(t.median_ms, 0.5);
}

TEST(GpuTiming, RunsInTurnsKeepTheirOwnTimes)
{
    REQUIRE_CUDA_GPU();
    // 200 µs and 400 µs of spinning, timed in turns: the medians are about
    // 0.2 ms and 0.4 ms (each plus a launch's few µs, so their ratio is just
    // under 2), every run has one sample a round, and the calls alternate.
    std::vector<char> calls;
    const std::vector<Timing> t = wl::cuda::time_in_turns({[&] {
                                                               calls.push_back('a');
                                                               spin_for<<<1, 1>>>(200'000);
                                                           },
                                                           [&] {
                                                               calls.push_back('b');
                                                               spin_for<<<1, 1>>>(400'000);
                                                           }},
                                                          false, 1.0, 3);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_NEAR(t[0].median_ms, 0.2, 0.03);
    EXPECT_NEAR(t[1].median_ms / t[0].median_ms, 2.0, 0.15);
    EXPECT_EQ(t[0].samples, t[1].samples);
    EXPECT_GE(t[0].samples, 10);
    // Warm-ups first, three of each in order ("aaabbb"); then round r starts
    // with run r % 2: "ab", "ba", "ab", ...
    ASSERT_EQ(calls.size(), 6 + 2 * static_cast<std::size_t>(t[0].samples));
    EXPECT_EQ(std::string(calls.begin(), calls.begin() + 6), "aaabbb");
    for (int round = 0; round < t[0].samples; ++round) {
        const char first = round % 2 == 0 ? 'a' : 'b', second = first == 'a' ? 'b' : 'a';
        EXPECT_EQ(calls[6 + 2 * round], first) << "round " << round;
        EXPECT_EQ(calls[6 + 2 * round + 1], second) << "round " << round;
    }
}

TEST(GpuTiming, ARunThatWaitsForTheGpuInsideDoesNotHang)
{
    REQUIRE_CUDA_GPU();
    // cudaDeviceSynchronize() inside the run waits for everything queued
    // before it, the gate's kernel too, which the host can only open after the
    // run returns. The gate lets go by itself after 20 ms: the samples are
    // slow to take, and the test ends (under ctest's timeout) instead of
    // hanging. What is timed is the two kernels and the host's return between
    // them: at least their 2 × 10 µs.
    const Timing t = wl::cuda::time_runs(
        [] {
            spin_for<<<1, 1>>>(10'000);
            cudaDeviceSynchronize();
            spin_for<<<1, 1>>>(10'000);
        },
        false, 0.5, 1);
    EXPECT_GE(t.samples, 10);
    EXPECT_GE(t.min_ms, 0.02);
}

}  // namespace
