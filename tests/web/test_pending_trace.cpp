// The viewer as the page runs it, natively: traces started elsewhere
// (App::start_trace; in the browser, the page's Worker) and delivered later
// through the JSON the Worker sends (slot_to_json, as text, slot_from_json).
// Against a desktop App that traces at once: while pending, the step asked
// for waits and the status is the progress line; once the trace arrives, the
// step, the steps, the status line, the focus and each thread's output equal
// the desktop's. A step beyond the trace is clamped when it arrives, a reply
// for a slot no longer pending is ignored, and a fault arrives as a fault.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "viewer/app.h"
#include "viewer/panels.h"
#include "viewer/trace_runner.h"

namespace {

using namespace warplab;
using namespace warplab::viewer;

struct Elsewhere {
    App app;
    std::vector<std::pair<TraceKey, RunRequest>> started;
    Elsewhere() { app.start_trace = [this](const TraceKey& key, const RunRequest& req) { started.emplace_back(key, req); }; }

    // What the Worker does with request i, and the page with its reply.
    void deliver(std::size_t i)
    {
        const auto& [key, req] = started.at(i);
        const Lab& lab = all_labs().at(key.lab);
        const std::string reply = slot_to_json(lab, req, run_trace(lab, req)).dump();
        trace_arrived(app, key, slot_from_json(nlohmann::json::parse(reply)));
    }
};

void open(App& app, const char* lab, const char* version, long step)
{
    select_by_name(app, lab, version);
    select_version(app, app.sel.version);
    set_step(app, step);
}

TEST(PendingTrace, StepWaitsAndTheArrivedTraceDrawsAsTheDesktops)
{
    App desk;
    open(desk, "matmul", "v5", 2);
    Elsewhere web;
    open(web.app, "matmul", "v5", 2);
    ASSERT_EQ(web.started.size(), 1u);  // the selected version's, nothing run here
    EXPECT_TRUE(current_trace(web.app).pending);
    EXPECT_EQ(step_count(web.app), 0u);
    EXPECT_EQ(web.app.sel.step, 2u);  // waits for its trace
    EXPECT_EQ(status_text(web.app).rfind("tracing matmul v5 on the emulator · queued · ", 0), 0u) << status_text(web.app);

    trace_progress(web.app, web.started[0].first, 0, 0);  // the Worker began
    EXPECT_EQ(status_text(web.app).find("queued"), std::string::npos) << status_text(web.app);
    trace_progress(web.app, web.started[0].first, 12, 64);
    EXPECT_NE(status_text(web.app).find(" · blocks 12 of 64 · "), std::string::npos) << status_text(web.app);

    web.deliver(0);
    const TraceSlot &w = current_trace(web.app), &d = current_trace(desk);
    ASSERT_FALSE(w.pending);
    ASSERT_TRUE(w.run && d.run);
    EXPECT_EQ(web.app.sel.step, 2u);
    EXPECT_EQ(step_count(web.app), step_count(desk));
    EXPECT_EQ(status_text(web.app), status_text(desk));
    EXPECT_EQ(w.run->block.events, d.run->block.events);
    EXPECT_EQ(w.run->block.shared_arrays.size(), d.run->block.shared_arrays.size());
    for (std::size_t i = 0; i < w.run->block.shared_arrays.size(); ++i)  // their types, from the declarations (finish_slot)
        EXPECT_EQ(w.run->block.shared_arrays[i].name, d.run->block.shared_arrays[i].name);
    EXPECT_EQ(web.app.focus.shared_event, desk.focus.shared_event);
    EXPECT_EQ(web.app.focus.global_event, desk.focus.global_event);
    ASSERT_TRUE(w.output && d.output);
    EXPECT_EQ(w.output->owners, d.output->owners);
    EXPECT_EQ(w.output->pitch, d.output->pitch);
}

TEST(PendingTrace, AStepBeyondTheTraceIsClampedWhenItArrives)
{
    Elsewhere web;
    open(web.app, "reduction", "v2", 99);
    EXPECT_EQ(web.app.sel.step, 99u);
    web.deliver(0);
    // Reduction v2 at 256 threads, one step a barrier interval: the load into shared memory (its
    // __syncthreads), the 8 rounds s = 1, 2, ..., 128 (one __syncthreads each), then thread 0
    // writing the block's sum: 1 + 8 + 1 = 10 steps, 0 to 9.
    EXPECT_EQ(step_count(web.app), 10u);
    EXPECT_EQ(web.app.sel.step, 9u);
}

TEST(PendingTrace, AReplyForASlotNoLongerPendingIsIgnoredAndAFaultArrivesAsOne)
{
    Elsewhere web;
    open(web.app, "reduction", "v5-racy", 0);
    web.deliver(0);
    const TraceSlot& slot = current_trace(web.app);
    EXPECT_FALSE(slot.run);
    EXPECT_TRUE(slot.fault);
    EXPECT_NE(slot.error.find("kernel fault"), std::string::npos) << slot.error;
    EXPECT_GT(slot.fault_line, 0u);
    TraceSlot other;
    other.error = "not this one";
    trace_arrived(web.app, web.started[0].first, std::move(other));
    EXPECT_NE(current_trace(web.app).error, "not this one");
}

}  // namespace
