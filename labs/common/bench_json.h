// Recorded results (results/*.json): bench tables with their provenance.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "labs/common/bench.h"

namespace warplab {

constexpr const char* kResultsFormat = "warplab-results";
constexpr int kResultsFormatVersion = 1;

nlohmann::json to_json(const BenchTable& table);
BenchTable bench_table_from_json(const nlohmann::json& j);

// A results document: {"format", "format_version", "tables": [...]}.
nlohmann::json results_document(const std::vector<BenchTable>& tables);
std::vector<BenchTable> tables_from_document(const nlohmann::json& doc);

// The recorded results: results/ in warplab's data (labs/common/data_dir.h).
std::string results_dir();

// The command line a record names as its provenance: "warplab" and the
// arguments, an absolute path written relative to `cwd` where it lies under
// it, else as its file name alone (a machine's own folders are not provenance).
std::string provenance_command(int argc, const char* const* argv, const std::string& cwd);

}  // namespace warplab
