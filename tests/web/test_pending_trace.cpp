// The viewer as the page runs it, natively: traces started elsewhere
// (App::start_trace; in the browser, the page's Worker) and delivered later
// through the JSON the Worker sends (slot_to_json, as text, slot_from_json).
// Against a desktop App that traces at once: while pending, the step asked
// for waits and the status is the progress line; once the trace arrives, the
// step, the steps, the status line, the focus and each thread's output equal
// the desktop's. A step beyond the trace is clamped when it arrives, a reply
// for a slot no longer pending is ignored, and a fault arrives as a fault.
// The metrics panel's rows of the versions not selected ask for their totals
// alone (a Totals reply, a few hundred bytes), which equal the desktop's, and
// no whole trace but the selected version's comes back.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "viewer/app/app.h"
#include "viewer/panels/panels.h"
#include "viewer/app/trace_runner.h"

namespace {

using namespace warplab;
using namespace warplab::viewer;

struct Started {
    TraceKey key;
    RunRequest req;
    TraceReply reply;
};

struct Elsewhere {
    App app;
    std::vector<Started> started;
    std::size_t largest_totals_reply = 0;  // bytes
    Elsewhere()
    {
        app.start_trace = [this](const TraceKey& key, const RunRequest& req, TraceReply reply) { started.push_back({key, req, reply}); };
    }

    // What the Worker does with request i (web/trace_worker.cpp), and the page with its reply (web/viewer_main.cpp).
    void deliver(std::size_t i)
    {
        const auto& [key, req, kind] = started.at(i);
        const Lab& lab = all_labs().at(key.lab);
        const nlohmann::json request = request_to_json(lab, req, kind);
        const TraceSlot slot = run_trace(lab, request_from_json(request));
        if (reply_from_json(request) == TraceReply::Totals) {
            const std::string reply = totals_reply_to_json(slot).dump();
            largest_totals_reply = std::max(largest_totals_reply, reply.size());
            totals_arrived(app, key, totals_reply_from_json(nlohmann::json::parse(reply)));
        } else {
            trace_arrived(app, key, slot_from_json(nlohmann::json::parse(slot_to_json(lab, req, slot).dump())));
        }
    }
    std::size_t count(TraceReply reply) const
    {
        return std::size_t(std::count_if(started.begin(), started.end(), [&](const Started& s) { return s.reply == reply; }));
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

    trace_progress(web.app, web.started[0].key, 0, 0);  // the Worker began
    EXPECT_EQ(status_text(web.app).find("queued"), std::string::npos) << status_text(web.app);
    trace_progress(web.app, web.started[0].key, 12, 64);
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
    for (std::size_t i = 0; i < w.run->block.shared_arrays.size(); ++i)  // their types, from the declarations (the trace's: wl::ptx::declare_array_types)
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
    trace_arrived(web.app, web.started[0].key, std::move(other));
    EXPECT_NE(current_trace(web.app).error, "not this one");
}

void expect_same_totals(const wl::trace::Totals& web, const wl::trace::Totals& desk, const std::string& version)
{
    SCOPED_TRACE(version);
    EXPECT_EQ(web.steps, desk.steps);
    EXPECT_EQ(web.partial_warp_steps, desk.partial_warp_steps);
    for (auto [w, d] : {std::pair(&web.shared_load, &desk.shared_load), std::pair(&web.shared_store, &desk.shared_store)}) {
        EXPECT_EQ(w->requests, d->requests);
        EXPECT_EQ(w->wavefronts, d->wavefronts);
        EXPECT_EQ(w->ideal, d->ideal);
        EXPECT_EQ(w->worst_ways, d->worst_ways);
    }
    for (auto [w, d] : {std::pair(&web.global_load, &desk.global_load), std::pair(&web.global_store, &desk.global_store)}) {
        EXPECT_EQ(w->requests, d->requests);
        EXPECT_EQ(w->sectors, d->sectors);
        EXPECT_EQ(w->ideal, d->ideal);
    }
}

// Every reduction version's row, as the metrics panel draws it (totals_of for each), with v2 selected.
TEST(PendingTrace, OtherVersionsRowsComeAsTotalsAloneAndEqualTheDesktops)
{
    App desk;
    open(desk, "reduction", "v2", 0);
    Elsewhere web;
    open(web.app, "reduction", "v2", 0);
    const std::size_t versions = current_lab(web.app).versions.size(), selected = web.app.sel.version;
    for (std::size_t i = 0; i < versions; ++i) EXPECT_TRUE(totals_of(web.app, i).pending) << i;
    // One whole trace (the selected version's, whose row waits for it rather than run it twice),
    // and one totals request for each other version; asking again starts nothing more.
    EXPECT_EQ(web.count(TraceReply::Whole), 1u);
    EXPECT_EQ(web.count(TraceReply::Totals), versions - 1);
    for (std::size_t i = 0; i < versions; ++i) totals_of(web.app, i);
    ASSERT_EQ(web.started.size(), versions);

    for (std::size_t i = 0; i < web.started.size(); ++i) web.deliver(i);
    EXPECT_LT(web.largest_totals_reply, 1000u);  // five counters' JSON, not the trace (reduction v2's is 272 KB)
    ASSERT_EQ(web.app.traces.size(), 1u);  // no whole trace here but the selected version's
    EXPECT_EQ(web.app.traces.begin()->first, trace_key(web.app, selected));
    std::size_t faulted = 0;
    for (std::size_t i = 0; i < versions; ++i) {
        const std::string id = current_lab(web.app).versions[i].id;
        const TotalsSlot w = totals_of(web.app, i), d = totals_of(desk, i);
        ASSERT_FALSE(w.pending) << id;
        ASSERT_EQ(bool(w.totals), bool(d.totals)) << id;
        EXPECT_EQ(w.fault, d.fault) << id;
        EXPECT_EQ(w.error, d.error) << id;
        faulted += w.fault;
        if (w.totals) expect_same_totals(*w.totals, *d.totals, id);
    }
    EXPECT_EQ(faulted, 1u);  // v5-racy (a missing __syncwarp) faults, as the desktop's, and its row says so
    ASSERT_EQ(web.started.size(), versions);  // the rows drawn again asked for nothing more

    // Not vacuous: v2's totals have every kind of count a dropped field would zero. v2 at 256 threads
    // has 10 steps (the load, 8 rounds s = 1..128, thread 0's write: AStepBeyondTheTraceIsClamped...),
    // reads global memory (the input) and loads and stores shared memory.
    const wl::trace::Totals& v2 = *totals_of(web.app, selected).totals;
    EXPECT_EQ(v2.steps, 10u);
    EXPECT_GT(v2.global_load.requests * v2.global_load.sectors * v2.global_load.ideal, 0u);
    EXPECT_GT(v2.shared_load.requests * v2.shared_load.wavefronts * v2.shared_load.ideal, 0u);
    EXPECT_GT(v2.shared_store.requests * v2.shared_store.wavefronts * v2.shared_store.ideal, 0u);
}

// A version whose totals came alone, then selected: its whole trace is asked for, its row keeps the totals meanwhile.
TEST(PendingTrace, SelectingAVersionWithTotalsAloneAsksForItsWholeTrace)
{
    Elsewhere web;
    open(web.app, "reduction", "v2", 0);
    const std::size_t v3 = web.app.sel.version + 1;
    totals_of(web.app, v3);
    ASSERT_EQ(web.started.size(), 2u);
    web.deliver(1);  // v3's totals
    ASSERT_TRUE(totals_of(web.app, v3).totals);
    select_version(web.app, v3);
    ASSERT_EQ(web.started.size(), 3u);
    EXPECT_EQ(web.started[2].reply, TraceReply::Whole);
    EXPECT_TRUE(current_trace(web.app).pending);
    EXPECT_TRUE(totals_of(web.app, v3).totals);  // not back to "tracing"
    const unsigned steps = totals_of(web.app, v3).totals->steps;
    web.deliver(2);
    EXPECT_EQ(step_count(web.app), steps);
    TotalsSlot stale;  // a reply for totals no longer pending changes nothing
    stale.error = "not this one";
    totals_arrived(web.app, web.started[1].key, std::move(stale));
    EXPECT_TRUE(totals_of(web.app, v3).totals);
}

TEST(PendingTrace, TheReplyAskedForTravelsWithTheRequestAndAnErrorAsOne)
{
    const Lab& lab = *find_lab("reduction");
    RunRequest req;
    req.version = "v2";
    EXPECT_EQ(reply_from_json(request_to_json(lab, req, TraceReply::Totals)), TraceReply::Totals);
    EXPECT_EQ(reply_from_json(request_to_json(lab, req)), TraceReply::Whole);
    nlohmann::json bad = request_to_json(lab, req);
    bad["reply"] = "some";
    EXPECT_THROW(reply_from_json(bad), std::invalid_argument);
    TraceSlot faulted;
    faulted.error = "kernel fault: here";
    faulted.fault = true;
    const TotalsSlot t = totals_reply_from_json(nlohmann::json::parse(totals_reply_to_json(faulted).dump()));
    EXPECT_FALSE(t.totals);
    EXPECT_TRUE(t.fault);
    EXPECT_EQ(t.error, "kernel fault: here");
    EXPECT_THROW(totals_reply_from_json(nlohmann::json::parse(R"({"totals": {"steps": 3}})")), nlohmann::json::exception);
}

}  // namespace
