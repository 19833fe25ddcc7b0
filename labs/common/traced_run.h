// A run's trace, analysed: what every front end (CLI, viewer, tests, grader)
// shows of one version, and its JSON document (docs/trace-format.md).
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>

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

// Writes trace_document's JSON as `out << std::setw(1) << document` would,
// byte for byte, without holding its events as JSON (a large trace's text
// is hundreds of megabytes).
void write_trace_document(std::ostream& out, const Lab& lab, const RunRequest& req, const TracedRun& run);

// What the document leaves out and a front end that loads a run draws (the
// viewer in a browser, whose traces run in a Worker): the problem line, how
// shared accesses were counted, a 2D reduction's partial sums.
nlohmann::json run_extras(const TracedRun& run);

// The run that trace_document and run_extras describe, as trace_version
// returned it but for its lane records (front ends draw from the analysis).
// Throws nlohmann::json::exception or std::invalid_argument on a malformed document.
TracedRun traced_run_from_json(const nlohmann::json& document, const nlohmann::json& extras);

// What a front end says where the watched block's trace ends before its run
// did (RunResult::records_cut): the records or their analysis reached their
// memory cap, and the trace shows the run's start only, up to which step.
std::string records_cut_note(const TracedRun& run);

}  // namespace warplab
