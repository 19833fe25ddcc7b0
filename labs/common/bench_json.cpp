#include "labs/common/bench_json.h"

#include <filesystem>
#include <stdexcept>

#include "labs/common/data_dir.h"

namespace warplab {

namespace {

nlohmann::json to_json(const Provenance& p)
{
    return {{"gpu", p.gpu}, {"driver", p.driver}, {"cuda_runtime", p.cuda_runtime}, {"sm_clock_mhz", p.sm_clock_mhz},
            {"mem_clock_mhz", p.mem_clock_mhz}, {"bus_width_bits", p.bus_width_bits}, {"sms", p.sms},
            {"l2_bytes", p.l2_bytes}, {"date", p.date}, {"command", p.command}, {"commit", p.commit},
            {"warplab", p.warplab}};
}

Provenance provenance_from_json(const nlohmann::json& j)
{
    Provenance p;
    p.gpu = j.at("gpu");
    p.driver = j.at("driver");
    p.cuda_runtime = j.at("cuda_runtime");
    p.sm_clock_mhz = j.at("sm_clock_mhz");
    p.mem_clock_mhz = j.at("mem_clock_mhz");
    p.bus_width_bits = j.at("bus_width_bits");
    p.sms = j.at("sms");
    p.l2_bytes = j.at("l2_bytes");
    p.date = j.at("date");
    p.command = j.at("command");
    p.commit = j.at("commit");
    p.warplab = j.value("warplab", "");  // recorded before 0.4.0: not said
    return p;
}

nlohmann::json to_json(const BenchRow& r)
{
    nlohmann::json j = {{"version", r.version}, {"reference", r.reference}, {"variant", r.variant}, {"ok", r.ok}, {"block", r.block},
            {"median_ms", r.median_ms}, {"min_ms", r.min_ms}, {"rse", r.rse}, {"samples", r.samples},
            {"rate", r.rate}, {"speedup_vs_previous", r.speedup_vs_previous}, {"cumulative", r.cumulative},
            {"pct_peak", r.pct_peak}, {"pct_copy", r.pct_copy}, {"vs_reference", r.vs_reference},
            {"compared_with", r.compared_with}, {"previous_version", r.previous_version}};
    if (r.bound_ms > 0) j["bound_ms"] = r.bound_ms;  // optional: only labs that time copies (transfers)
    return j;
}

BenchRow row_from_json(const nlohmann::json& j)
{
    BenchRow r;
    r.version = j.at("version");
    r.reference = j.at("reference");
    r.variant = j.at("variant");
    r.ok = j.at("ok");
    r.block = j.value("block", 0u);
    r.median_ms = j.at("median_ms");
    r.min_ms = j.at("min_ms");
    r.rse = j.at("rse");
    r.samples = j.at("samples");
    r.rate = j.at("rate");
    // Results recorded before the field's rename call it step_speedup / step_from.
    r.speedup_vs_previous = j.contains("step_speedup") ? j.at("step_speedup") : j.at("speedup_vs_previous");
    r.cumulative = j.at("cumulative");
    r.pct_peak = j.at("pct_peak");
    r.pct_copy = j.at("pct_copy");
    r.vs_reference = j.at("vs_reference");
    r.compared_with = j.value("compared_with", "");
    r.previous_version = j.value("previous_version", j.value("step_from", ""));
    r.bound_ms = j.value("bound_ms", 0.0);
    return r;
}

nlohmann::json to_json(const TimelineSpan& s)
{
    return {{"gpu", s.gpu}, {"stream", s.stream}, {"engine", s.engine}, {"bytes", s.bytes}, {"start_ms", s.start_ms}, {"end_ms", s.end_ms}};
}

TimelineSpan span_from_json(const nlohmann::json& j)
{
    return {j.at("gpu"), j.at("stream"), j.at("engine"), j.at("bytes"), j.at("start_ms"), j.at("end_ms")};
}

nlohmann::json to_json(const RunTimeline& t)
{
    nlohmann::json spans = nlohmann::json::array();
    for (const TimelineSpan& s : t.spans) spans.push_back(to_json(s));
    return {{"version", t.version}, {"wall_ms", t.wall_ms}, {"spans", spans}};
}

RunTimeline timeline_from_json(const nlohmann::json& j)
{
    RunTimeline t{j.at("version"), j.at("wall_ms"), {}};
    for (const auto& s : j.at("spans")) t.spans.push_back(span_from_json(s));
    return t;
}

}  // namespace

nlohmann::json to_json(const BenchTable& t)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const BenchRow& r : t.rows) rows.push_back(to_json(r));
    nlohmann::json j = {{"lab", t.lab}, {"type", t.type}, {"rate_unit", t.rate_unit}, {"n", t.n}, {"warm", t.warm},
                        {"peak", t.peak}, {"copy_rate", t.copy_rate}, {"note", t.note},
                        {"provenance", to_json(t.provenance)}, {"rows", rows}};
    if (!t.shape.empty()) j["shape"] = t.shape;  // optional: only labs with several dimensions
    if (!t.block.empty()) j["block"] = t.block;  // optional: only a --block run
    if (!t.links.empty() || !t.timelines.empty()) {  // optional: only labs that time copies (transfers)
        nlohmann::json links = nlohmann::json::array(), timelines = nlohmann::json::array();
        for (const LinkRate& l : t.links) links.push_back({{"link", l.link}, {"gbps", l.gbps}});
        for (const RunTimeline& r : t.timelines) timelines.push_back(to_json(r));
        j["links"] = links;
        j["timelines"] = timelines;
    }
    return j;
}

BenchTable bench_table_from_json(const nlohmann::json& j)
{
    BenchTable t;
    t.lab = j.at("lab");
    t.type = j.at("type");
    t.rate_unit = j.at("rate_unit");
    t.n = j.at("n");
    t.warm = j.at("warm");
    t.peak = j.at("peak");
    t.copy_rate = j.at("copy_rate");
    t.note = j.at("note");
    t.provenance = provenance_from_json(j.at("provenance"));
    if (j.contains("shape")) t.shape = j.at("shape").get<std::vector<std::size_t>>();
    if (j.contains("block")) t.block = j.at("block").get<std::vector<unsigned>>();
    for (const auto& r : j.at("rows")) t.rows.push_back(row_from_json(r));
    if (j.contains("links"))
        for (const auto& l : j.at("links")) t.links.push_back({l.at("link"), l.at("gbps")});
    if (j.contains("timelines"))
        for (const auto& r : j.at("timelines")) t.timelines.push_back(timeline_from_json(r));
    return t;
}

nlohmann::json results_document(const std::vector<BenchTable>& tables)
{
    nlohmann::json list = nlohmann::json::array();
    for (const BenchTable& t : tables) list.push_back(to_json(t));
    return {{"format", kResultsFormat}, {"format_version", kResultsFormatVersion}, {"tables", list}};
}

std::vector<BenchTable> tables_from_document(const nlohmann::json& doc)
{
    if (doc.value("format", "") != kResultsFormat || doc.value("format_version", 0) != kResultsFormatVersion)
        throw std::invalid_argument("not a warplab-results document of format version 1");
    std::vector<BenchTable> out;
    for (const auto& t : doc.at("tables")) out.push_back(bench_table_from_json(t));
    return out;
}

std::string results_dir() { return (data_dir() / "results").string(); }

std::string provenance_command(int argc, const char* const* argv, const std::string& cwd)
{
    namespace fs = std::filesystem;
    std::string command = "warplab";
    for (int i = 1; i < argc; ++i) {
        fs::path arg(argv[i]);
        if (arg.is_absolute()) {
            const fs::path inside = arg.lexically_normal().lexically_relative(fs::path(cwd).lexically_normal());
            const bool under = !inside.empty() && *inside.begin() != "..";
            arg = under ? inside : arg.filename();
        }
        command.append(" ").append(arg.string());
    }
    return command;
}

}  // namespace warplab
