// The trace module of the page's Worker (trace_worker.js): one trace a call,
// off the page's main thread, as the desktop viewer runs it (run_trace), its
// slot sent back as JSON (trace_runner.h) for the viewer to read: the whole
// trace, or for a request with "reply": "totals" (the metrics panel's rows of
// the versions not shown) its totals alone. Progress
// goes to Module.onTraceProgress(blocks done, blocks): (0, 0) as the trace
// starts, then as the emulator reports blocks. Under node the same module
// serves tests/web/worker_trace.js.
#include <emscripten.h>

#include <string>

#include "labs/common/lab.h"
#include "viewer/app/trace_runner.h"

namespace {

void report_progress(std::uint64_t done, std::uint64_t blocks)
{
    EM_ASM({ if (Module.onTraceProgress) Module.onTraceProgress($0, $1); }, double(done), double(blocks));
}

std::string trace_reply(const char* request)
{
    using namespace warplab;
    nlohmann::json j;
    RunRequest req;
    viewer::TraceReply reply = viewer::TraceReply::Whole;
    const Lab* lab = nullptr;
    viewer::TraceSlot refused;
    try {
        j = nlohmann::json::parse(request);
        lab = find_lab(j.at("lab").get<std::string>());
        if (!lab) throw std::invalid_argument("no lab " + j.at("lab").dump());
        req = viewer::request_from_json(j);
        reply = viewer::reply_from_json(j);
    } catch (const std::exception& e) {
        refused.error = std::string("malformed trace request: ") + e.what();
        return viewer::slot_to_json(Lab{}, req, refused).dump();
    }
    req.progress = report_progress;
    report_progress(0, 0);
    const viewer::TraceSlot slot = viewer::run_trace(*lab, req);
    return (reply == viewer::TraceReply::Totals ? viewer::totals_reply_to_json(slot) : viewer::slot_to_json(*lab, req, slot)).dump();
}

}  // namespace

// The reply stays valid until the next call.
extern "C" EMSCRIPTEN_KEEPALIVE const char* warplab_trace(const char* request)
{
    static std::string reply;
    reply = trace_reply(request);
    return reply.c_str();
}
