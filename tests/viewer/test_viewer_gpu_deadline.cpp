// A kernel past the GPU deadline in the viewer, without a GPU: reduction with
// its GPU run replaced by a wait on a launch that never finishes, through the
// same wait a GPU run takes (warplab/cuda/deadline.h), with a deadline of 50 ms
// instead of 30 s. The window keeps the fault: the status line and the threads
// panel's box say what happened and what to do, and offer the emulator; the
// selection stops asking for the GPU, so another version traces on the
// emulator, and this one does too when asked. tests/gpu/endless_kernel.sh
// runs the real thing (a --file kernel that never ends) on a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "viewer/app/app.h"
#include "viewer/panels/panels.h"
#include "viewer/platform/headless.h"
#include "viewer/platform/platform.h"
#include "warplab/cuda/deadline.h"

namespace warplab::viewer {
namespace {

constexpr double kDeadline = 0.05;

// reduction as the viewer shows it, but its run on the GPU never finishes.
std::shared_ptr<const UserLab> reduction_never_finishing_on_the_gpu()
{
    auto lab = std::make_shared<UserLab>();
    lab->lab = *find_lab("reduction");
    lab->lab.run = [emulated = lab->lab.run](const RunRequest& req) {
        if (req.backend == BackendChoice::Gpu && !wl::cuda::gpu_abandoned())
            wl::cuda::wait_within_deadline([] { return false; }, "reduce_v1<256u, float>", kDeadline);
        return emulated(req);  // the registry's run, which refuses the GPU once abandoned
    };
    return lab;
}

TEST(ViewerGpuDeadline, TheWindowShowsTheFaultAndTheEmulatorTracesOn)
{
    wl::cuda::past_deadline(wl::cuda::PastDeadline::Throw);  // as the viewer's main() sets it
    App app;
    app.animate = false;
    select_by_name(app, "reduction", "v1");
    app.user_lab = reduction_never_finishing_on_the_gpu();
    Selection s = app.sel;
    s.n = 4096;
    s.backend = BackendChoice::Gpu;
    select_settings(app, s);

    const TraceSlot& slot = current_trace(app);
    ASSERT_FALSE(slot.run);
    EXPECT_TRUE(slot.fault);
    EXPECT_TRUE(slot.gpu_deadline);
    EXPECT_TRUE(wl::cuda::gpu_abandoned());
    // The paragraph names the kernel, why, and what to do.
    for (const char* said : {"kernel fault: the kernel reduce_v1<256u, float> did not finish within 0.05 s on the GPU",
                             "run it on the emulator", "the other versions trace on the emulator"})
        EXPECT_NE(slot.error.find(said), std::string::npos) << said << " is not in: " << slot.error;
    // The selection no longer asks for the GPU, and still shows v1's fault.
    EXPECT_EQ(app.sel.backend, BackendChoice::Auto);
    EXPECT_FALSE(app.gpu.available);
    EXPECT_TRUE(current_trace(app).gpu_deadline);
    EXPECT_NE(status_text(app).find("did not finish within 0.05 s on the GPU"), std::string::npos) << status_text(app);

    // Drawn: the status line's error and the fault's box with its button for the emulator.
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    PlatformOptions po;
    po.headless = true;
    po.width = 1600, po.height = 900;
    {
        Platform platform(po, app);
        const nlohmann::json layout = layout_document(app, frame_image(platform, app));
        EXPECT_TRUE(layout.at("status").at("gpu_deadline").get<bool>());
        EXPECT_TRUE(layout.at("regions").contains("status.error"));
        EXPECT_TRUE(layout.at("regions").contains("fault.emulator"));
        EXPECT_FALSE(layout.at("regions").contains("fault.lockstep"));  // no schedule of the emulator's helps a GPU
    }

    // Another version traces on the emulator, and so does v1 when the button asks for it.
    select_version(app, 1);
    ASSERT_TRUE(current_trace(app).run) << current_trace(app).error;
    EXPECT_NE(current_trace(app).run->result.backend.find("emulator"), std::string::npos) << current_trace(app).run->result.backend;
    select_version(app, 0);
    EXPECT_TRUE(current_trace(app).gpu_deadline);  // staying on v1 stays on its fault
    s = app.sel;
    s.backend = BackendChoice::Cpu;
    select_settings(app, s);
    ASSERT_TRUE(current_trace(app).run) << current_trace(app).error;
    EXPECT_TRUE(current_trace(app).run->result.ok);
}

// The GPU abandoned by a kernel past its deadline (here, or by the test above
// in this process), then asked for again at other settings, as the viewer's
// --backend gpu --n 4096 did after its first trace at the defaults had run past
// the deadline (tests/gpu/endless_kernel.sh, on an H100): the window shows that
// kernel's fault, not "no GPU backend", and the selection stops asking for the GPU.
TEST(ViewerGpuDeadline, AskedForAgainTheGpuAnswersWithTheDeadlinesFault)
{
    wl::cuda::past_deadline(wl::cuda::PastDeadline::Throw);
    if (!wl::cuda::gpu_abandoned())
        EXPECT_THROW(wl::cuda::wait_within_deadline([] { return false; }, "reduce_v1<256u, float>", kDeadline),
                     wl::cuda::GpuDeadlinePassed);
    ASSERT_TRUE(wl::cuda::gpu_abandoned());
    App app;
    app.animate = false;
    select_by_name(app, "reduction", "v1");
    app.user_lab = reduction_never_finishing_on_the_gpu();
    Selection s = app.sel;
    s.n = 2048;  // settings no run has asked for yet
    s.backend = BackendChoice::Gpu;
    select_settings(app, s);

    const TraceSlot& slot = current_trace(app);
    EXPECT_TRUE(slot.fault);
    EXPECT_TRUE(slot.gpu_deadline);
    EXPECT_EQ(slot.error.find("no GPU backend"), std::string::npos) << slot.error;
    EXPECT_NE(slot.error.find("kernel fault: the kernel reduce_v1<256u, float> did not finish within 0.05 s on the GPU"),
              std::string::npos) << slot.error;
    EXPECT_EQ(app.sel.backend, BackendChoice::Auto);
    EXPECT_NE(status_text(app).find("did not finish within 0.05 s on the GPU"), std::string::npos) << status_text(app);
}

}  // namespace
}  // namespace warplab::viewer
