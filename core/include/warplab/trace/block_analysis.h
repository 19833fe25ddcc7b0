// One block of a run's trace, grouped into warp events and analysed step by
// step: the one post-processing path of every front end (CLI, viewer, tests,
// grader).
#pragma once
#include <cstdint>
#include <vector>

#include "warplab/trace/analysis.h"
#include "warplab/trace/events.h"
#include "warplab/trace/record.h"

namespace wl::trace {

struct BlockAnalysis {
    BlockTrace block;
    std::vector<StepMetrics> steps;
    Totals totals;
    std::vector<SharedSnapshot> shared_after;  // shared memory's values after each step
};

// Block `block`'s records among a run's (which may hold other watched blocks), analysed.
BlockAnalysis analyze_block(const std::vector<LaneRecord>& records, std::uint32_t block, std::uint32_t threads_in_block);

}  // namespace wl::trace
