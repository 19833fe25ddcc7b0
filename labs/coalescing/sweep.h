// A version's sweep: for every setting (offset 0..32, stride 1..32), the read's
// sectors per request in the watched block's trace, actual and ideal, beside
// the effective bandwidth recorded in results/ where there is one. The CLI
// prints it (warplab sweep coalescing), the viewer plots it, the walkthrough
// quotes it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/lab.h"
#include "labs/common/traced_run.h"

namespace warplab::coalescing {

struct SweepPoint {
    unsigned setting = 0;
    double sectors = 0, ideal = 0;  // per read request (the kernel's global loads)
    double gbps = 0;                // recorded effective bandwidth (read + write); 0: none recorded
    double pct_peak = 0;
};

struct Sweep {
    std::string version, setting_name;  // "v1", "offset"
    std::vector<SweepPoint> points;
    std::string traced_on;  // the backend that ran the traces
    std::string recorded;   // "NVIDIA H100 80GB HBM3, 2026-11-23, n = 16777216"; empty: none recorded
};

// The recorded coalescing table to quote: the largest n of the newest file in
// `results_dir`; nullopt when none is recorded (or the folder is missing).
std::optional<BenchTable> recorded_table(const std::string& results_dir);

// One point from a traced run of `version` at `setting`.
SweepPoint sweep_point(const std::string& version, unsigned setting, const TracedRun& run, const BenchTable* recorded);

// Traces every setting of the version `base.version` (base.setting is ignored).
// Throws std::invalid_argument for a version without a setting or bad input.
Sweep sweep(const Lab& lab, const RunRequest& base, const BenchTable* recorded);

// The lab's sweep hook (Lab::sweep): the version of `base` at every setting,
// beside the recorded table in results/, as `warplab sweep` prints it.
std::string sweep_report(const Lab& lab, const RunRequest& base, bool markdown);

// The sweep as a text table, or as markdown (the walkthrough's form).
std::string sweep_text(const Sweep& s);
std::string sweep_markdown(const Sweep& s);

}  // namespace warplab::coalescing
