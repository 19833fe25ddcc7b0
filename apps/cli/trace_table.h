// Plain-text tables of a traced block, as `warplab trace` prints them.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "labs/common/fidelity.h"
#include "labs/common/lab.h"
#include "warplab/trace/analysis.h"
#include "warplab/trace/block_analysis.h"
#include "warplab/trace/events.h"

namespace warplab::cli {

// Which file a trace site's hash names: the version's own (shown as bare line
// numbers) or another file of the lab (matmul v7 runs v6's loads), by base name.
struct SourceNames {
    std::uint32_t own = 0;
    std::map<std::uint32_t, std::string> others;
};
SourceNames source_names(const Lab& lab, const std::string& own_file);

// with_requests: a column of each step's global load and store requests (warp instructions), which the
// sectors-per-request column averages away (reduction v4's doubled loads at the same 4 sectors each).
std::string trace_table(const std::vector<wl::trace::StepMetrics>& steps, const wl::trace::Totals& totals,
                        const wl::trace::BlockTrace& block, const SourceNames& names, bool with_requests = false);

// One side of `warplab trace --compare`: a run's analysis and what to call it ("v2", "yours").
struct ComparedTrace {
    std::string label;
    const wl::trace::BlockAnalysis& run;
    SourceNames names;
};

// The two runs' steps aligned by index: each side's lines, then per metric
// (threads, warps, partial, shared wavefronts, worst n-way, global requests
// and sectors per request) one value where both agree and "a -> b" where not;
// the first step whose accesses differ (wl::trace::differing_steps) marked *.
std::string compare_table(const ComparedTrace& a, const ComparedTrace& b);

// warplab's counted totals beside Nsight Compute's measured per-block counts.
std::string counted_vs_measured_table(const MemoryCounts& counted, const MeasuredCounts& measured);

// What `warplab trace` prints under the table about the recorded counts of the
// version: the comparison where the run's launch is the recorded one, else which
// launch was recorded; empty where none is recorded (or the kernel is the user's).
std::string measured_note(const Lab& lab, const RunRequest& req, const RunResult& result, const wl::trace::Totals& totals);

}  // namespace warplab::cli
