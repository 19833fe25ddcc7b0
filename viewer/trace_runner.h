// Runs one traced launch and keeps what went wrong instead of throwing: a
// kernel fault or bad input becomes a message the window shows.
#pragma once
#include "viewer/app.h"

namespace warplab::viewer {

TraceSlot run_trace(const Lab& lab, const RunRequest& req);

}  // namespace warplab::viewer
