// Plain-text tables of a traced block, as `warplab trace` prints them.
#pragma once
#include <string>
#include <vector>

#include "labs/common/fidelity.h"
#include "labs/common/lab.h"
#include "warplab/trace/analysis.h"

namespace warplab::cli {

std::string trace_table(const std::vector<wl::trace::StepMetrics>& steps, const wl::trace::Totals& totals);

// warplab's counted totals beside Nsight Compute's measured per-block counts.
std::string counted_vs_measured_table(const MemoryCounts& counted, const MeasuredCounts& measured);

// What `warplab trace` prints under the table about the recorded counts of the
// version: the comparison where the run's launch is the recorded one, else which
// launch was recorded; empty where none is recorded (or the kernel is the user's).
std::string measured_note(const Lab& lab, const RunRequest& req, const RunResult& result, const wl::trace::Totals& totals);

}  // namespace warplab::cli
