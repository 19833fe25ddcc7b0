// A run's trace, analysed: what every front end (CLI, viewer, tests, grader)
// shows of one version, and its JSON document (docs/trace-format.md).
#pragma once
#include <nlohmann/json.hpp>

#include "labs/common/lab.h"
#include "warplab/trace/block_analysis.h"

namespace warplab {

// A run, and the analysis of its watched block.
struct TracedRun : wl::trace::BlockAnalysis {
    RunResult result;
};

// Runs the version and analyses its watched block. Throws std::invalid_argument
// on bad input and wl::emu::KernelFault when the kernel faults.
TracedRun trace_version(const Lab& lab, const RunRequest& req);

nlohmann::json trace_document(const Lab& lab, const RunRequest& req, const TracedRun& run);

// What a front end says where the watched block's records reached the
// emulator's cap (RunResult::records_cut): the trace shows the run's start only.
std::string records_cut_note();

}  // namespace warplab
