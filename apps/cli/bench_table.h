// Plain-text, CSV and markdown forms of bench tables, as `warplab bench` prints them.
#pragma once
#include <string>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/published.h"

namespace warplab::cli {

std::string bench_text(const BenchTable& table, const std::string& source);
std::string bench_csv(const BenchTable& table);

// Markdown for documents (the walkthroughs' measured tables are this output).
// With no versions: one table per (type, size), every row, under a caption.
// With versions (names, or "ref" for the vendor library's row): one table of
// just those rows, with a size column first.
std::string bench_markdown(const std::vector<BenchTable>& tables, const std::vector<std::string>& versions);

// `bench LAB --recorded --published`: a published table beside the recorded
// one (now; nullptr: none of its type), aligned by version: the published
// figures, then the recorded time, rate and the same step's speed-up; the
// lab's versions the source has no row for are named below it. Text or markdown.
std::string published_beside(const PublishedTable& published, const BenchTable* now,
                             const std::vector<std::string>& lab_versions, bool markdown);
// What a source says in words only, quoted as it says it.
std::string published_statements(const PublishedStatements& s, bool markdown);

}  // namespace warplab::cli
