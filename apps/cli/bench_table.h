// Plain-text, CSV and markdown forms of bench tables, as `warplab bench` prints them.
#pragma once
#include <string>
#include <vector>

#include "labs/common/bench.h"

namespace warplab::cli {

std::string bench_text(const BenchTable& table, const std::string& source);
std::string bench_csv(const BenchTable& table);

// Markdown for documents (the walkthroughs' measured tables are this output).
// With no versions: one table per (type, size), every row, under a caption.
// With versions (names, or "ref" for the vendor library's row): one table of
// just those rows, with a size column first.
std::string bench_markdown(const std::vector<BenchTable>& tables, const std::vector<std::string>& versions);

}  // namespace warplab::cli
