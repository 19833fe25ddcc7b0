// Plain-text tables of a traced block, as `warplab trace` prints them.
#pragma once
#include <string>
#include <vector>

#include "warplab/trace/analysis.h"

namespace warplab::cli {

std::string trace_table(const std::vector<wl::trace::StepMetrics>& steps, const wl::trace::Totals& totals);

}  // namespace warplab::cli
