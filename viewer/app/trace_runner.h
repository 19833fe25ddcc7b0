// Runs one traced launch and keeps what went wrong instead of throwing: a
// kernel fault or bad input becomes a message the window shows.
#pragma once
#include <nlohmann/json.hpp>

#include "viewer/app/app.h"

namespace warplab::viewer {

TraceSlot run_trace(const Lab& lab, const RunRequest& req);

// A trace run elsewhere (the browser's Worker, web/trace_worker.cpp): the
// request as JSON and back (the fields request_for sets, and the reply it
// wants), and the slot it made as JSON and back: for a Whole reply
// labs/common/traced_run.h's document and extras, for a Totals reply the
// totals alone, or the error. The readers throw nlohmann::json::exception or
// std::invalid_argument on a malformed message.
nlohmann::json request_to_json(const Lab& lab, const RunRequest& req, TraceReply reply = TraceReply::Whole);
RunRequest request_from_json(const nlohmann::json& j);
TraceReply reply_from_json(const nlohmann::json& request);
nlohmann::json slot_to_json(const Lab& lab, const RunRequest& req, const TraceSlot& slot);
TraceSlot slot_from_json(const nlohmann::json& j);
nlohmann::json totals_reply_to_json(const TraceSlot& slot);
TotalsSlot totals_reply_from_json(const nlohmann::json& j);

}  // namespace warplab::viewer
