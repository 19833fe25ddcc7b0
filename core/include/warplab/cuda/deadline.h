// A GPU kernel has no instruction budget, so a kernel that never ends (a
// --file kernel whose loop never exits) would hang the process at its next
// wait. Every wait on a launch goes through wait_within_deadline instead.
//
// Past the deadline the GPU is abandoned: the context is still running the
// kernel and can be neither freed nor reused, and any CUDA call that waits for
// the device (cudaFree among them) would wait forever. What happens next is
// the front end's choice (past_deadline):
// - Exit (the default: the CLI, `warplab run`): one paragraph and exit 3, as
//   the emulator's instruction budget ends a run;
// - Throw (the viewer): GpuDeadlinePassed carries the paragraph to the window.
//   From then on gpu_abandoned() holds: frees and event clean-up are skipped,
//   a lab's run asked for the GPU throws the same fault (refuse_abandoned_gpu,
//   which labs/common/registry.cpp calls), gpu_status says why the GPU takes
//   no more work (gpu_abandoned_reason), and the process
//   ends with std::_Exit, never through CUDA's own clean-up at exit.
// Nothing here calls CUDA, so a test drives the whole path without a GPU
// (wait_within_deadline with a `done` that never holds and a short deadline).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace wl::cuda {

// Far above any lab launch at its largest size (the slowest, matmul v1 at
// 4096^3, takes well under a second on the GPUs warplab supports).
inline constexpr double kGpuDeadlineSeconds = 30;

// What a wait past the deadline does.
enum class PastDeadline { Exit, Throw };

// A kernel ran past the deadline and still runs; what() is the paragraph the CLI prints.
class GpuDeadlinePassed : public std::runtime_error {
public:
    GpuDeadlinePassed(std::string kernel, const std::string& paragraph)
        : std::runtime_error(paragraph), kernel_(std::move(kernel)) {}
    const std::string& kernel() const { return kernel_; }

private:
    std::string kernel_;
};

namespace detail {
struct DeadlineState {
    std::atomic<PastDeadline> action{PastDeadline::Exit};
    std::atomic<bool> abandoned{false};
    std::mutex mutex;
    std::string kernel;     // the one still running, once abandoned
    std::string paragraph;  // ... and the paragraph its deadline was reported in
};
inline DeadlineState& deadline_state()
{
    static DeadlineState state;
    return state;
}
}  // namespace detail

// Chooses what a wait past the deadline does, for the whole process.
inline void past_deadline(PastDeadline action) { detail::deadline_state().action = action; }

// True once a kernel ran past its deadline: no CUDA call may follow.
inline bool gpu_abandoned() { return detail::deadline_state().abandoned.load(); }

// The paragraph that names a kernel past the deadline.
inline std::string deadline_paragraph(const std::string& kernel, double seconds)
{
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", seconds);
    return "kernel fault: the kernel " + kernel + " did not finish within " + limit +
           " s on the GPU: an endless loop? A GPU kernel has no instruction budget, so warplab cannot name its thread and "
           "line here; run it on the emulator (--backend cpu), whose budget stops it with the block, thread and line.";
}

// Refuses work for the GPU while a kernel past its deadline holds it: that
// kernel's fault again, so a later request is the one deadline fault too.
inline void refuse_abandoned_gpu()
{
    auto& state = detail::deadline_state();
    if (!state.abandoned) return;
    std::lock_guard lock(state.mutex);
    throw GpuDeadlinePassed(state.kernel, state.paragraph);
}

// Why the GPU takes no more work ("" while it does): the kernel it still runs.
inline std::string gpu_abandoned_reason()
{
    auto& state = detail::deadline_state();
    if (!state.abandoned) return "";
    std::lock_guard lock(state.mutex);
    return "the GPU is still running " + state.kernel +
           ", which ran past its deadline; nothing more runs on it until warplab is restarted";
}

// Abandons the GPU, then exits or throws as past_deadline chose.
inline void gpu_deadline_passed(const std::string& kernel, double seconds = kGpuDeadlineSeconds)
{
    auto& state = detail::deadline_state();
    {
        std::lock_guard lock(state.mutex);
        if (!state.abandoned) state.kernel = kernel, state.paragraph = deadline_paragraph(kernel, seconds);
        state.abandoned = true;
    }
    const std::string paragraph = deadline_paragraph(kernel, seconds);
    if (state.action == PastDeadline::Throw) throw GpuDeadlinePassed(kernel, paragraph);
    std::fprintf(stderr, "warplab: %s\n", paragraph.c_str());
    std::fflush(stderr);
    std::_Exit(3);
}

// Polls `done()` (true once the GPU's work is finished; it throws on a CUDA
// error) until it holds or `seconds` pass. It spins for the first
// millisecond, so that short timed runs are not slowed, then sleeps between polls.
template <class Done> void wait_within_deadline(Done&& done, const std::string& kernel, double seconds = kGpuDeadlineSeconds)
{
    const auto start = std::chrono::steady_clock::now();
    const auto spin_until = start + std::chrono::milliseconds(1);
    const auto deadline = start + std::chrono::duration<double>(seconds);
    while (!done()) {
        const auto now = std::chrono::steady_clock::now();
        if (now > deadline) gpu_deadline_passed(kernel, seconds);
        if (now > spin_until) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

}  // namespace wl::cuda
