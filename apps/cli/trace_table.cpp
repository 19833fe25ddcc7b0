#include "trace_table.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <tuple>

#include "warplab/trace/compare.h"
#include "warplab/trace/record.h"

namespace warplab::cli {

namespace {

// A step's source lines: "45,47" in the version's own file; a line of
// another file carries its name ("06_vectorized.cuh:68"), or "?:" where the
// file is none of the lab's (a CUDA header).
std::string lines_text(const std::vector<wl::trace::Site>& sites, const SourceNames& names)
{
    if (sites.empty()) return "-";
    std::string s;
    for (std::size_t i = 0; i < sites.size() && i < 3; ++i) {
        if (i) s += ',';  // not `(i ? "," : "") + ...`, which g++ 12 misreads as an overlapping copy (-Wrestrict)
        if (sites[i].file_hash != names.own) {
            const auto it = names.others.find(sites[i].file_hash);
            s += (it == names.others.end() ? std::string("?") : it->second) + ":";
        }
        s += std::to_string(sites[i].line);
    }
    if (sites.size() > 3) s += ",..";
    return s;
}

// Per step, its work's distinct sites, the version's own file first, then by line.
std::vector<std::vector<wl::trace::Site>> step_sites(const wl::trace::BlockTrace& block, std::size_t steps, std::uint32_t own)
{
    std::vector<std::set<std::tuple<bool, std::uint32_t, std::uint32_t>>> sorted(steps);
    for (const wl::trace::WarpEvent& e : block.events)
        if (e.step < steps && wl::trace::is_work(e.kind)) sorted[e.step].insert({e.site.file_hash != own, e.site.line, e.site.file_hash});
    std::vector<std::vector<wl::trace::Site>> out(steps);
    for (std::size_t i = 0; i < steps; ++i)
        for (const auto& [other, line, hash] : sorted[i]) out[i].push_back({hash, line});
    return out;
}

// "wavefronts/ideal", or "-" when there was no such access.
std::string shared_text(const wl::trace::SharedStats& a, const wl::trace::SharedStats& b)
{
    const unsigned requests = a.requests + b.requests;
    if (!requests) return "-";
    return std::to_string(a.wavefronts + b.wavefronts) + "/" + std::to_string(a.ideal + b.ideal);
}

std::string ways_text(double ways)
{
    if (ways == 0) return "-";
    char buf[16];
    std::snprintf(buf, sizeof buf, ways == static_cast<int>(ways) ? "%.0f-way" : "%.1f-way", ways);
    return buf;
}

std::string sectors_text(const wl::trace::GlobalStats& a, const wl::trace::GlobalStats& b)
{
    const unsigned requests = a.requests + b.requests;
    if (!requests) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f (ideal %.1f)", double(a.sectors + b.sectors) / requests,
                  double(a.ideal + b.ideal) / requests);
    return buf;
}

// "loads/stores" requests, or "-" when there was no global access.
std::string requests_text(const wl::trace::GlobalStats& load, const wl::trace::GlobalStats& store)
{
    if (!load.requests && !store.requests) return "-";
    return std::to_string(load.requests) + "/" + std::to_string(store.requests);
}

// lines_w: the line column's width, as wide as its widest entry ("06_vectorized.cuh:68");
// requests: the optional column of global requests, "" when not asked for.
void row(std::ostringstream& out, int lines_w, const std::string& step, const std::string& lines, const std::string& threads,
         const std::string& warps, const std::string& partial, const std::string& shared, const std::string& worst,
         const std::string& requests, const std::string& global)
{
    char buf[384];
    std::snprintf(buf, sizeof buf, "%-6s %-*s %8s %6s %8s %12s %8s  %s%s\n", step.c_str(), lines_w, lines.c_str(),
                  threads.c_str(), warps.c_str(), partial.c_str(), shared.c_str(), worst.c_str(),
                  requests.empty() ? "" : (std::string(21 - std::min<std::size_t>(requests.size(), 21), ' ') + requests + "  ").c_str(),
                  global.c_str());
    out << buf;
}

// __constant__ loads, where the block has any: the constant cache serves a warp
// instruction one distinct address at a time (analysis.h), so n addresses are n-way.
std::string constant_table(const std::vector<wl::trace::StepMetrics>& steps, const wl::trace::Totals& totals)
{
    std::ostringstream out;
    out << "\n__constant__ loads: each warp instruction is served once per distinct address it reads\n";
    char buf[128];
    auto line = [&](const std::string& step, const wl::trace::ConstantStats& c) {
        std::snprintf(buf, sizeof buf, "%-6s %9u %10u %6s\n", step.c_str(), c.requests, c.addresses,
                      c.worst ? (std::to_string(c.worst) + "-way").c_str() : "-");
        out << buf;
    };
    std::snprintf(buf, sizeof buf, "%-6s %9s %10s %6s\n", "step", "requests", "addresses", "worst");
    out << buf;
    for (const auto& s : steps)
        if (s.constant_load.requests) line(std::to_string(s.step), s.constant_load);
    line("total", totals.constant_load);
    return out.str();
}

}  // namespace

SourceNames source_names(const Lab& lab, const std::string& own_file)
{
    SourceNames names;
    names.own = wl::trace::file_hash(own_file.c_str());
    for (const Version& v : lab.versions) {
        const std::string path = v.file;
        names.others.emplace(wl::trace::file_hash(path.c_str()), path.substr(path.find_last_of('/') + 1));
    }
    return names;
}

namespace {

// "shared arrays: unsigned long long landed[8] (line 31), float tile[256] (tiles.cuh:12)",
// as the viewer titles them (wl::trace::array_text); an included file's declaration by file:line.
std::string shared_arrays_line(const std::vector<wl::trace::SharedArrayInfo>& arrays)
{
    std::string out = "shared arrays:";
    for (const wl::trace::SharedArrayInfo& a : arrays) {
        const std::string line = std::to_string(a.line);
        out += (&a == &arrays.front() ? " " : ", ") + wl::trace::array_text(a);
        if (a.line) out += a.file.empty() ? " (line " + line + ")" : " (" + a.file + ":" + line + ")";
    }
    return out + "\n";
}

}  // namespace

std::string trace_table(const std::vector<wl::trace::StepMetrics>& steps, const wl::trace::Totals& totals,
                        const wl::trace::BlockTrace& block, const SourceNames& names, bool with_requests)
{
    std::ostringstream out;
    const auto sites = step_sites(block, steps.size(), names.own);
    std::vector<std::string> lines;
    int lines_w = 14;
    for (const auto& s : steps) {
        lines.push_back(lines_text(sites[s.step], names));
        lines_w = std::max(lines_w, static_cast<int>(lines.back().size()));
    }
    // Warps of another width than NVIDIA's say so above the table (warps, partial and banks count them).
    if (const std::string width = wl::trace::warp_width_label(block.warp_size); !width.empty())
        out << "warps: " << width << " (" << block.warp_size << " lanes a warp)\n";
    const auto requests = [&](const wl::trace::GlobalStats& load, const wl::trace::GlobalStats& store) {
        return with_requests ? requests_text(load, store) : std::string();
    };
    row(out, lines_w, "step", "line", "threads", "warps", "partial", "shared wf", "worst", with_requests ? "global requests ld/st" : "",
        "global sectors/request");
    for (const auto& s : steps) {
        const double worst = std::max(s.shared_load.worst_ways, s.shared_store.worst_ways);
        row(out, lines_w, std::to_string(s.step), lines[s.step], std::to_string(s.active_threads),
            std::to_string(s.active_warps), std::to_string(s.partial_warps), shared_text(s.shared_load, s.shared_store),
            ways_text(worst), requests(s.global_load, s.global_store), sectors_text(s.global_load, s.global_store));
    }
    const double worst = std::max(totals.shared_load.worst_ways, totals.shared_store.worst_ways);
    row(out, lines_w, "total", "", "", "", std::to_string(totals.partial_warp_steps), shared_text(totals.shared_load, totals.shared_store),
        ways_text(worst), requests(totals.global_load, totals.global_store), sectors_text(totals.global_load, totals.global_store));
    out << "\nshared wf: shared-memory wavefronts, actual/ideal (loads and stores); worst: the worst n-way bank conflict\n"
           "of one warp instruction; partial: warps with only some lanes active at an access (divergence);\n"
           "line: lines of the version's file, or file:line where a step runs code of another file.\n";
    if (with_requests) out << "global requests ld/st: warp instructions that load / store global memory.\n";
    if (!block.shared_arrays.empty()) out << shared_arrays_line(block.shared_arrays);
    if (totals.constant_load.requests) out << constant_table(steps, totals);
    return out.str();
}

namespace {

// One value where both sides agree, "a -> b" where they differ; "none" for a step a side does not have.
std::string both(const std::optional<std::string>& a, const std::optional<std::string>& b)
{
    const std::string x = a.value_or("none"), y = b.value_or("none");
    return x == y ? x : x + " -> " + y;
}

// Rows of cells, each column as wide as its widest cell.
std::string aligned(const std::vector<std::vector<std::string>>& rows)
{
    std::vector<std::size_t> width;
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) width.resize(std::max(width.size(), c + 1)), width[c] = std::max(width[c], r[c].size());
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (std::size_t c = 0; c < r.size(); ++c) line += r[c] + std::string(c + 1 < r.size() ? width[c] - r[c].size() + 3 : 0, ' ');
        out += line + "\n";
    }
    return out;
}

// A step's cells of one side, without its lines: threads, warps, partial, shared wf, worst, requests, sectors.
std::vector<std::string> metric_cells(const wl::trace::StepMetrics& s)
{
    return {std::to_string(s.active_threads),
            std::to_string(s.active_warps),
            std::to_string(s.partial_warps),
            shared_text(s.shared_load, s.shared_store),
            ways_text(std::max(s.shared_load.worst_ways, s.shared_store.worst_ways)),
            requests_text(s.global_load, s.global_store),
            sectors_text(s.global_load, s.global_store)};
}

}  // namespace

std::string compare_table(const ComparedTrace& a, const ComparedTrace& b)
{
    const std::vector<bool> differing = wl::trace::differing_steps(a.run.block, b.run.block);
    const std::optional<std::uint32_t> first = wl::trace::first_differing_step(differing);
    const auto sites_a = step_sites(a.run.block, a.run.steps.size(), a.names.own);
    const auto sites_b = step_sites(b.run.block, b.run.steps.size(), b.names.own);
    std::vector<std::vector<std::string>> rows{{"step", "line " + a.label, "line " + b.label, "threads", "warps", "partial", "shared wf",
                                                "worst", "global ld/st", "sectors/request"}};
    for (std::size_t s = 0; s < differing.size(); ++s) {
        const bool in_a = s < a.run.steps.size(), in_b = s < b.run.steps.size();
        std::vector<std::string> row{std::to_string(s) + (first == s ? " *" : ""), in_a ? lines_text(sites_a[s], a.names) : "none",
                                     in_b ? lines_text(sites_b[s], b.names) : "none"};
        const auto cells_a = in_a ? metric_cells(a.run.steps[s]) : std::vector<std::string>{};
        const auto cells_b = in_b ? metric_cells(b.run.steps[s]) : std::vector<std::string>{};
        for (std::size_t c = 0; c < 7; ++c)
            row.push_back(both(in_a ? std::optional(cells_a[c]) : std::nullopt, in_b ? std::optional(cells_b[c]) : std::nullopt));
        rows.push_back(std::move(row));
    }
    const auto total_cells = [](const wl::trace::Totals& t) {
        return std::vector<std::string>{"", "", std::to_string(t.partial_warp_steps), shared_text(t.shared_load, t.shared_store),
                                        ways_text(std::max(t.shared_load.worst_ways, t.shared_store.worst_ways)),
                                        requests_text(t.global_load, t.global_store), sectors_text(t.global_load, t.global_store)};
    };
    const auto ta = total_cells(a.run.totals), tb = total_cells(b.run.totals);
    std::vector<std::string> total{"total", std::to_string(a.run.steps.size()) + " steps", std::to_string(b.run.steps.size()) + " steps"};
    for (std::size_t c = 0; c < 7; ++c) total.push_back(both(ta[c], tb[c]));
    rows.push_back(std::move(total));
    std::string out = aligned(rows) + "\n";
    out += first ? "* step " + std::to_string(*first) + ": the first step whose accesses differ (which lanes touch which words)\n"
                 : "the two runs make the same accesses at every step\n";
    out += "a -> b: " + a.label + ", then " + b.label + " (one value: both agree); shared wf: wavefronts actual/ideal;\n"
           "worst: the worst n-way bank conflict; global ld/st: load/store requests (warp instructions).\n";
    return out;
}

namespace {

// A count as ncu gives it per block: an average, exact where it is whole.
std::string count_text(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, v == static_cast<double>(static_cast<long long>(v)) ? "%.0f" : "%.1f", v);
    return buf;
}

std::string counts_row(const std::string& label, const MemoryCounts& c)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-34s %8s %8s %8s %8s %10s %8s\n", label.c_str(), count_text(c.shared_load_requests).c_str(),
                  count_text(c.shared_load_wavefronts).c_str(), count_text(c.shared_store_requests).c_str(),
                  count_text(c.shared_store_wavefronts).c_str(), count_text(c.global_load_requests).c_str(),
                  count_text(c.global_load_sectors).c_str());
    return buf;
}

}  // namespace

std::string counted_vs_measured_table(const MemoryCounts& counted, const MeasuredCounts& measured)
{
    char head[256];
    std::snprintf(head, sizeof head, "%-34s %17s %17s %19s\n%-34s %8s %8s %8s %8s %10s %8s\n",
                  "counted vs measured, per block", "shared loads", "shared stores", "global loads", "", "instr", "wavefr",
                  "instr", "wavefr", "requests", "sectors");
    std::string out = std::string("\n") + head + counts_row("counted (warplab)", counted) +
                      counts_row("measured on " + short_gpu_name(measured.gpu) + " (ncu)", measured.per_block) + "(" +
                      measured.tool + ", " + measured.date + ": counters over every block of the launch, divided by the blocks)\n";
    for (const std::string& note : measured.not_compared) out += "not compared: " + note + "\n";
    return out;
}

std::string measured_note(const Lab& lab, const RunRequest& req, const RunResult& result, const wl::trace::Totals& totals)
{
    if (!req.file.empty()) return "";
    const std::optional<MeasuredCounts> measured = measured_counts(lab, req.version);
    if (!measured) return "";
    if (launch_of(req, result) == measured->launch) return counted_vs_measured_table(counted(totals), *measured);
    return "\nmeasured on " + short_gpu_name(measured->gpu) + " (ncu) for another launch: " + describe(measured->launch) +
           " (this run: " + describe(launch_of(req, result)) + ")\n";
}

}  // namespace warplab::cli
