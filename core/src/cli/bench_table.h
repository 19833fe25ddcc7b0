// Plain-text and CSV forms of a bench table, as `warplab bench` prints them.
#pragma once
#include <string>

#include "labs/common/bench.h"

namespace warplab::cli {

std::string bench_text(const BenchTable& table, const std::string& source);
std::string bench_csv(const BenchTable& table);

}  // namespace warplab::cli
