// Nsight Compute's per-block counts of each version, recorded on a GPU by
// scripts/ncu_fidelity.py (results/fidelity/<gpu>-ncu.json), beside which the
// CLI and the viewer show warplab's own counts: "counted vs measured".
//
// The counts hold for one launch only (the script's size, type and the
// version's bench block); a run compares with them only where its launch is
// the same (same_launch).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "warplab/trace/analysis.h"

namespace warplab {

// The six counts the fidelity check compares, per block.
struct MemoryCounts {
    double shared_load_requests = 0, shared_load_wavefronts = 0;
    double shared_store_requests = 0, shared_store_wavefronts = 0;
    double global_load_requests = 0, global_load_sectors = 0;
};

// What warplab counted in a run's watched block, in the same terms.
MemoryCounts counted(const wl::trace::Totals& totals);

// A launch, as far as the counts depend on it.
struct CountedLaunch {
    std::vector<std::size_t> shape;  // reduction: {n}; matmul: {M, N, K}
    std::string type;                // element type
    std::vector<unsigned> block;     // {x, y, z}
    bool operator==(const CountedLaunch&) const = default;
};
CountedLaunch launch_of(const RunRequest& req, const RunResult& result);
// "n = 4325376 int, block 256" or "256×256×256 float, block 32×32".
std::string describe(const CountedLaunch& launch);

struct MeasuredCounts {
    std::string gpu;     // "NVIDIA H100 80GB HBM3"
    std::string tool;    // "ncu 2025.3.1.0"
    std::string date;    // of the measurement
    CountedLaunch launch;
    MemoryCounts per_block;
    // Counts recorded but left out of the check, each "metric (counts): why"
    // (matmul v9's cp.async shared-write wavefronts).
    std::vector<std::string> not_compared;
};

// The recorded counts of a lab's version on the first GPU that has them in
// results/fidelity/, or nullopt (no file, or no row for the version). Throws
// std::invalid_argument naming the file when one is malformed.
std::optional<MeasuredCounts> measured_counts(const Lab& lab, const std::string& version);
// The same from one file (tests).
std::optional<MeasuredCounts> measured_counts_in(const std::string& path, const Lab& lab, const std::string& version);

// The GPU's short name for a heading: "H100" from "NVIDIA H100 80GB HBM3".
std::string short_gpu_name(const std::string& gpu);

}  // namespace warplab
