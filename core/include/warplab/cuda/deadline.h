// A GPU kernel has no instruction budget, so a kernel that never ends (a
// --file kernel whose loop never exits) would hang the process at its next
// wait. Every wait on a launch goes through wait_within_deadline instead.
// Past the deadline nothing can go on: the context is still running the
// kernel and can be neither freed nor reused, so the process ends with exit 3,
// as the emulator's instruction budget ends a run, after one paragraph.
#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace wl::cuda {

// Far above any lab launch at its largest size (the slowest, matmul v1 at
// 4096^3, takes well under a second on the GPUs warplab supports).
inline constexpr double kGpuDeadlineSeconds = 30;

[[noreturn]] inline void gpu_deadline_passed(const std::string& kernel)
{
    std::fprintf(stderr,
                 "warplab: kernel fault: the kernel %s did not finish within %.0f s on the GPU: an endless loop? A GPU kernel has no "
                 "instruction budget, so warplab cannot name its thread and line here; run it on the emulator "
                 "(--backend cpu), whose budget stops it with the block, thread and line.\n",
                 kernel.c_str(), kGpuDeadlineSeconds);
    std::fflush(stderr);
    std::_Exit(3);
}

// Polls `done()` (true once the GPU's work is finished; it throws on a CUDA
// error) until it holds or the deadline passes. It spins for the first
// millisecond, so that short timed runs are not slowed, then sleeps between polls.
template <class Done> void wait_within_deadline(Done&& done, const std::string& kernel)
{
    const auto start = std::chrono::steady_clock::now();
    const auto spin_until = start + std::chrono::milliseconds(1);
    const auto deadline = start + std::chrono::duration<double>(kGpuDeadlineSeconds);
    while (!done()) {
        const auto now = std::chrono::steady_clock::now();
        if (now > deadline) gpu_deadline_passed(kernel);
        if (now > spin_until) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

}  // namespace wl::cuda
