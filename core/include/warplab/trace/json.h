// JSON form of one traced block: events, per-step metrics and shared contents.
// The format is documented in docs/trace-format.md; the parse functions read
// back exactly what block_to_json writes, so the viewer can load a file.
#pragma once
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "warplab/trace/analysis.h"
#include "warplab/trace/events.h"

namespace wl::trace {

constexpr const char* kTraceFormat = "warplab-trace";
constexpr int kTraceFormatVersion = 1;

// What every trace document opens with: its format, the format's version, and
// the warplab that wrote it (warplab/version.h). Writers add their fields to it.
nlohmann::json trace_document_header();

// Where a block's events go: into the JSON, or left for write_document to
// write (the JSON holds a placeholder).
enum class Events { InJson, Written };

// steps[i] and shared_after[i] describe block.steps[i]; either vector may be
// shorter (or empty), and then those fields are left out of the step object.
nlohmann::json block_to_json(const BlockTrace& block, const std::vector<StepMetrics>& steps,
                             const std::vector<SharedSnapshot>& shared_after, Events events = Events::InJson);

// Writes `document` as `out << std::setw(1) << document` does, byte for byte,
// where its one block came from block_to_json(block, ..., Events::Written):
// the events from `block` as they come, never all of them as JSON at once
// (a large trace's events are millions of lanes, hundreds of MB of text).
void write_document(std::ostream& out, const nlohmann::json& document, const BlockTrace& block);

nlohmann::json totals_to_json(const Totals& totals);
Totals totals_from_json(const nlohmann::json& totals);  // its inverse

// Inverses of block_to_json. They throw nlohmann::json::exception (or
// std::invalid_argument for an unknown kind or space name) on malformed input.
BlockTrace block_from_json(const nlohmann::json& block);
std::vector<StepMetrics> steps_from_json(const nlohmann::json& block);
std::vector<SharedSnapshot> shared_after_from_json(const nlohmann::json& block);

// kind_name and space_name: kinds.h. These throw std::invalid_argument on a word it does not list.
Kind kind_from_name(const std::string& name);
Space space_from_name(const std::string& name);

}  // namespace wl::trace
