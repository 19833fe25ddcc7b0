#include "labs/common/traced_run.h"

#include <utility>

#include "warplab/emu/emulator.h"
#include "warplab/trace/json.h"

namespace warplab {

TracedRun trace_version(const Lab& lab, const RunRequest& req)
{
    RunResult result = lab.run(req);
    // A user's kernel has no machine-code listing: its counts stay per PTX instruction.
    const wl::trace::MachineCode* code = req.file.empty() ? wl::trace::lab_machine_code(lab.id) : nullptr;
    wl::trace::BlockAnalysis watched =
        wl::trace::analyze_block(result.records, req.watched_block, result.threads_per_block, code, result.warp_width);
    result.records = {};  // the analysis holds what the front ends read (up to the record cap's bytes, freed)
    return TracedRun{std::move(watched), std::move(result)};
}

nlohmann::json trace_document(const Lab& lab, const RunRequest& req, const TracedRun& run)
{
    nlohmann::json doc;
    doc["format"] = wl::trace::kTraceFormat;
    doc["format_version"] = wl::trace::kTraceFormatVersion;
    doc["lab"] = lab.id;
    doc["version"] = req.version;
    doc["backend"] = run.result.backend;
    doc["schedule"] = wl::emu::to_string(req.schedule);
    doc["n"] = req.n;
    doc["block"] = req.block;
    doc["type"] = req.type;
    doc["watched_block"] = req.watched_block;
    doc["seed"] = req.seed;
    doc["result"] = {{"value", run.result.value}, {"expected", run.result.expected}, {"ok", run.result.ok}};
    // Labs with a multi-dimensional problem (matmul) say what ran: the viewer
    // maps a global offset of C to (row, col) = (i / N, i % N) with shape[1] = N.
    if (!run.result.shape.empty()) doc["shape"] = run.result.shape;
    if (!run.result.block_dim.empty()) doc["block_dim"] = run.result.block_dim;
    if (!run.result.grid_dim.empty()) doc["grid_dim"] = run.result.grid_dim;
    if (!run.result.check.empty()) doc["result"]["check"] = run.result.check;
    doc["blocks"] = nlohmann::json::array({wl::trace::block_to_json(run.block, run.steps, run.shared_after)});
    doc["totals"] = wl::trace::totals_to_json(run.totals);
    if (!run.result.warnings.empty()) doc["warnings"] = run.result.warnings;  // the emulator's, one line each
    if (run.result.records_cut) doc["records_cut"] = true;                    // the watched block's records end early
    return doc;
}

std::string records_cut_note()
{
    return "the watched block's records reached the emulator's cap (" + std::to_string(wl::emu::LaunchOptions{}.max_record_bytes >> 20) +
           " MiB): the trace covers its start only";
}

}  // namespace warplab
