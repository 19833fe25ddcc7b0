#include "labs/common/traced_run.h"

#include <limits>
#include <utility>

#include "labs/common/data_dir.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/declared_arrays.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/json.h"

namespace warplab {

namespace {

// The watched block's shared arrays in the types the version's source (or the
// user's --file) declares them with: the trace carries them to every front end.
void declare_array_types(const Lab& lab, const RunRequest& req, wl::trace::BlockTrace& block)
{
    const Version* v = find_version(lab, req.version);
    if (req.file.empty() && !v) return;
    const std::vector<wl::ptx::CudaSource> sources =
        req.file.empty() ? wl::ptx::read_cuda_files(v->file, data_dir().string()) : wl::ptx::read_cuda_files(req.file);
    wl::ptx::declare_array_types(block, sources, req.file.empty() ? v->kernel : req.kernel, req.type);
}

}  // namespace

TracedRun trace_version(const Lab& lab, const RunRequest& req)
{
    RunResult result = lab.run(req);
    // A user's kernel has no machine-code listing: its counts stay per PTX instruction.
    const wl::trace::MachineCode* code = req.file.empty() ? wl::trace::lab_machine_code(lab.id) : nullptr;
    // The records move into the analysis, which frees them: it holds what the front ends read.
    wl::trace::BlockAnalysis watched = wl::trace::analyze_block(
        std::move(result.records), req.watched_block, result.threads_per_block, code, result.warp_width, result.records_cut,
        [&](wl::trace::BlockTrace& block) { declare_array_types(lab, req, block); });
    result.records = {};
    result.records_cut = watched.block.end != wl::trace::TraceEnd::Whole;
    return TracedRun{std::move(watched), std::move(result)};
}

namespace {

nlohmann::json document(const Lab& lab, const RunRequest& req, const TracedRun& run, wl::trace::Events events)
{
    nlohmann::json doc = wl::trace::trace_document_header();
    doc["lab"] = lab.id;
    doc["version"] = req.version;
    doc["backend"] = run.result.backend;
    doc["schedule"] = wl::emu::to_string(req.schedule);
    if (!run.result.engine.empty()) doc["engine"] = run.result.engine;  // what ran the unwatched blocks
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
    if (!run.result.path.empty()) doc["path"] = run.result.path;  // which launch a version of several took
    doc["blocks"] = nlohmann::json::array({wl::trace::block_to_json(run.block, run.steps, run.shared_after, events)});
    doc["totals"] = wl::trace::totals_to_json(run.totals);
    if (!run.result.warnings.empty()) doc["warnings"] = run.result.warnings;  // the emulator's, one line each
    if (run.result.records_cut) doc["records_cut"] = true;                    // the watched block's trace ends early
    if (run.block.end == wl::trace::TraceEnd::InLastStep) doc["records_cut_within_step"] = true;  // its last step in part
    return doc;
}

}  // namespace

nlohmann::json trace_document(const Lab& lab, const RunRequest& req, const TracedRun& run)
{
    return document(lab, req, run, wl::trace::Events::InJson);
}

void write_trace_document(std::ostream& out, const Lab& lab, const RunRequest& req, const TracedRun& run)
{
    wl::trace::write_document(out, document(lab, req, run, wl::trace::Events::Written), run.block);
}

nlohmann::json run_extras(const TracedRun& run)
{
    nlohmann::json grids = nlohmann::json::array();
    for (const PassGrid& g : run.result.pass_grids) grids.push_back({{"width", g.width}, {"height", g.height}, {"values", g.values}});
    const PictureCells& p = run.result.picture;
    return {{"problem", run.result.problem},
            {"user_kernel", run.result.user_kernel},
            {"compile_warnings", run.result.compile_warnings},
            {"threads_per_block", run.result.threads_per_block},
            {"per_machine_instruction", run.per_machine_instruction},
            {"pass_grids", std::move(grids)},
            {"picture", {{"width", p.width}, {"height", p.height}, {"cell", p.cell}, {"rgb", p.rgb}}}};
}

namespace {

// JSON has no NaN: nlohmann writes it as null (a wrong float result may be one).
double number_or_nan(const nlohmann::json& j)
{
    return j.is_null() ? std::numeric_limits<double>::quiet_NaN() : j.get<double>();
}

template <class T> T value_or_empty(const nlohmann::json& j, const char* key)
{
    return j.contains(key) ? j.at(key).get<T>() : T{};
}

}  // namespace

TracedRun traced_run_from_json(const nlohmann::json& doc, const nlohmann::json& extras)
{
    TracedRun run;
    const nlohmann::json& block = doc.at("blocks").at(0);
    run.block = wl::trace::block_from_json(block);
    run.steps = wl::trace::steps_from_json(block);
    run.shared_after = wl::trace::shared_after_from_json(block);
    run.totals = wl::trace::totals_from_json(doc.at("totals"));
    run.per_machine_instruction = extras.at("per_machine_instruction").get<bool>();
    RunResult& r = run.result;
    r.backend = doc.at("backend").get<std::string>();
    const nlohmann::json& result = doc.at("result");
    r.value = number_or_nan(result.at("value"));
    r.expected = number_or_nan(result.at("expected"));
    r.ok = result.at("ok").get<bool>();
    r.check = value_or_empty<std::string>(result, "check");
    r.threads_per_block = extras.at("threads_per_block").get<unsigned>();
    r.warp_width = run.block.warp_size;
    r.shape = value_or_empty<std::vector<std::size_t>>(doc, "shape");
    r.block_dim = value_or_empty<std::vector<unsigned>>(doc, "block_dim");
    r.grid_dim = value_or_empty<std::vector<unsigned>>(doc, "grid_dim");
    r.warnings = value_or_empty<std::vector<std::string>>(doc, "warnings");
    r.records_cut = doc.value("records_cut", false);
    if (r.records_cut)
        run.block.end = doc.value("records_cut_within_step", false) ? wl::trace::TraceEnd::InLastStep : wl::trace::TraceEnd::AfterLastStep;
    r.path = doc.value("path", "");
    r.problem = extras.at("problem").get<std::string>();
    r.user_kernel = extras.at("user_kernel").get<std::string>();
    r.compile_warnings = extras.value("compile_warnings", "");
    for (const nlohmann::json& g : extras.at("pass_grids"))
        r.pass_grids.push_back({g.at("width").get<unsigned>(), g.at("height").get<unsigned>(), g.at("values").get<std::vector<float>>()});
    if (const auto p = extras.find("picture"); p != extras.end())
        r.picture = {p->at("width").get<unsigned>(), p->at("height").get<unsigned>(), p->at("cell").get<unsigned>(),
                     p->at("rgb").get<std::vector<std::uint8_t>>()};
    return run;
}

std::string records_cut_note(const TracedRun& run)
{
    const std::size_t last = run.steps.empty() ? 0 : run.steps.size() - 1;
    const std::string where = run.block.end == wl::trace::TraceEnd::InLastStep
                                  ? "within step " + std::to_string(last) + ", which shows only its first events"
                                  : "after step " + std::to_string(last) + ", the last whole one";
    return "the watched block's trace ends " + where + ": the block ran on, but its records reached warplab's memory cap (" +
           std::to_string(wl::emu::LaunchOptions{}.max_record_bytes >> 20) + " MiB of records, " +
           std::to_string(wl::trace::kAnalysisBytes >> 20) + " MiB of events)";
}

}  // namespace warplab
