// The bottleneck search's reading of three times (Filipovič, "Code
// Optimizations": interpretation of measured times): a kernel whole, with its
// computation commented out (memory-only) and with its data movement commented
// out (compute-only). `warplab bench method` prints it under its table.
#pragma once
#include <string>

#include "labs/common/bench.h"

namespace warplab::method {

// One kernel's search: the versions whose times are read together. The
// memory-only time is the occupancy-guarded variant's where the kernel has one.
struct BottleneckSearch {
    const char* kernel;  // "compute-heavy"
    const char* full;
    const char* memory_only;
    const char* compute_only;
};
inline constexpr BottleneckSearch kSearches[] = {{"compute-heavy", "v1", "v4", "v3"}, {"memory-heavy", "v5", "v6", "v7"}};

// A variant "takes about the full time" from this fraction of it up; below,
// it is much faster.
inline constexpr double kNear = 0.75;

enum class Bound { Memory, Compute, Both, Latency };

// The lecture's three readings: a part near the full time
// names the bound (both parts near it: optimise both); neither near it: the
// parts do not overlap, each waits on the other's latency.
Bound bound_of(double full_ms, double memory_ms, double compute_ms);
std::string bound_text(Bound b);

// One line per search whose three rows the table holds: the times side by
// side and the verdict; empty when it holds none.
std::string verdict_lines(const BenchTable& table);

}  // namespace warplab::method
