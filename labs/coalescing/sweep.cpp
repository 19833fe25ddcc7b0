#include "labs/coalescing/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "labs/coalescing/versions.h"
#include "labs/common/bench_json.h"

namespace warplab::coalescing {

namespace {

// A recorded figure rounded to a whole number, or "-" where none was recorded.
std::string whole_or_dash(double v, const char* unit = "") { return v > 0 ? std::to_string(std::lround(v)) + unit : "-"; }

std::string recorded_label(const BenchTable& t)
{
    return t.provenance.gpu + ", " + t.provenance.date.substr(0, 10) + ", n = " + std::to_string(t.n) + " floats";
}

}  // namespace

std::optional<BenchTable> recorded_table(const std::string& results_dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(results_dir, ec)) return std::nullopt;
    std::optional<BenchTable> best;
    for (const auto& entry : std::filesystem::directory_iterator(results_dir, ec)) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream f(entry.path());
        for (BenchTable& t : tables_from_document(nlohmann::json::parse(f)))
            if (t.lab == "coalescing" && (!best || t.provenance.date > best->provenance.date ||
                                          (t.provenance.date == best->provenance.date && t.n > best->n)))
                best = std::move(t);
    }
    return best;
}

SweepPoint sweep_point(const std::string& version, unsigned setting, const TracedRun& run, const BenchTable* recorded)
{
    SweepPoint p;
    p.setting = setting;
    const wl::trace::GlobalStats& loads = run.totals.global_load;
    p.sectors = loads.sectors_per_request();
    p.ideal = loads.requests ? double(loads.ideal) / loads.requests : 0.0;
    if (recorded)
        for (const BenchRow& r : recorded->rows)
            if (r.version == row_name(version, setting) && r.ok) {
                p.gbps = r.rate;
                p.pct_peak = r.pct_peak;
            }
    return p;
}

Sweep sweep(const Lab& lab, const RunRequest& base, const BenchTable* recorded)
{
    const Setting* setting = setting_of(base.version);
    if (!setting) throw std::invalid_argument("unknown coalescing version '" + base.version + "'");
    Sweep out{base.version, setting->name, {}, "", recorded ? recorded_label(*recorded) : ""};
    for (unsigned s = setting->first; s <= setting->last; ++s) {
        RunRequest req = base;
        req.setting = static_cast<int>(s);
        const TracedRun run = trace_version(lab, req);
        if (!run.result.ok) throw std::runtime_error(base.version + " at " + setting->name + " " + std::to_string(s) + ": " + run.result.check);
        out.traced_on = run.result.backend;
        out.points.push_back(sweep_point(base.version, s, run, recorded));
    }
    return out;
}

std::string sweep_report(const Lab& lab, const RunRequest& base, bool markdown)
{
    const std::optional<BenchTable> recorded = recorded_table(results_dir());
    const Sweep s = sweep(lab, base, recorded ? &*recorded : nullptr);
    if (markdown) return sweep_markdown(s);
    const Version* v = find_version(lab, base.version);
    return lab.id + " " + v->id + " (" + v->name + "): " + v->idea + "; n = " + std::to_string(base.n) + " floats, block " +
           std::to_string(base.block) + "\n\n" + sweep_text(s) + "\n";
}

std::string sweep_text(const Sweep& s)
{
    std::string out;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%8s  %15s  %6s  %8s  %9s\n", s.setting_name.c_str(), "sectors/request", "ideal", "GB/s",
                  "% of peak");
    out += buf;
    for (const SweepPoint& p : s.points) {
        std::snprintf(buf, sizeof buf, "%8u  %15.1f  %6.1f  %8s  %9s\n", p.setting, p.sectors, p.ideal,
                      whole_or_dash(p.gbps).c_str(), whole_or_dash(p.pct_peak, " %").c_str());
        out += buf;
    }
    out += "\nsectors/request: the read's 32-byte sectors per warp request in block 0, traced on the " + s.traced_on + ".\n";
    out += s.recorded.empty() ? "GB/s: none recorded in results/ (on a GPU: warplab bench coalescing --record results/<gpu>-coalescing.json)\n"
                              : "GB/s: n floats read + n written per run, recorded on " + s.recorded + ".\n";
    return out;
}

std::string sweep_markdown(const Sweep& s)
{
    std::string out = "| " + s.setting_name + " | sectors/request | ideal | GB/s | % of peak |\n|--:|--:|--:|--:|--:|\n";
    char buf[160];
    for (const SweepPoint& p : s.points) {
        std::snprintf(buf, sizeof buf, "| %u | %.1f | %.1f | %s | %s |\n", p.setting, p.sectors, p.ideal,
                      whole_or_dash(p.gbps).c_str(), whole_or_dash(p.pct_peak, " %").c_str());
        out += buf;
    }
    out += s.recorded.empty() ? "\n<sub>GB/s: not recorded yet.</sub>\n" : "\n<sub>GB/s recorded on " + s.recorded + ".</sub>\n";
    return out;
}

}  // namespace warplab::coalescing
