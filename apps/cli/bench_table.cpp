#include "bench_table.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace warplab::cli {

namespace {

std::string fixed(double v, const char* format)
{
    if (v == 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// Milliseconds to four significant-ish places: 0.0513, 2.598, 275.608.
std::string ms_text(double ms) { return fixed(ms, ms < 1 ? "%.4f" : "%.3f"); }

std::string rate_text(double rate) { return fixed(rate, rate >= 100 ? "%.0f" : "%.1f"); }

std::string row_label(const BenchRow& r)
{
    return r.version + (r.variant ? " (variant)" : "") + (r.ok ? "" : " (wrong result)");
}

// Memory-bound labs compare with the copy kernel of the same run, compute-bound ones with the peak.
bool has_copy(const BenchTable& t) { return t.copy_rate > 0; }

// "CUB" or "cuBLAS": the first word of the reference row's name.
std::string reference_name(const BenchTable& t)
{
    for (const BenchRow& r : t.rows)
        if (r.reference) return r.version.substr(0, r.version.find(' '));
    return "reference";
}

// Transfers' rows are compared with their links' lower bound, not with a peak from clocks.
bool has_bound(const BenchTable& t)
{
    return std::any_of(t.rows.begin(), t.rows.end(), [](const BenchRow& r) { return r.bound_ms > 0; });
}

std::string markdown_header(const BenchTable& t, bool with_size)
{
    std::string head = with_size ? "| size " : "";
    std::string align = with_size ? "|---" : "";
    head += "| version | block | median ms | min ms | " + t.rate_unit + (has_bound(t) ? " | % of bound" : " | % of peak") + (has_copy(t) ? " | % of copy" : "") +
            " | vs previous | cumulative | vs " + reference_name(t) + " |\n";
    align += std::string("|---|--:|--:|--:|--:|--:|") + (has_copy(t) ? "--:|" : "") + "--:|--:|--:|\n";
    return head + align;
}

std::string markdown_row(const BenchTable& t, const BenchRow& r, bool with_size)
{
    std::string line = with_size ? "| " + size_label(t) + " " : "";
    line += "| " + row_label(r) + " | " + (r.block ? std::to_string(r.block) : "library") + " | " +
            ms_text(r.median_ms) + " | " + ms_text(r.min_ms) + " | " + rate_text(r.rate) + " | " +
            fixed(r.pct_peak, "%.0f %%") + " | ";
    if (has_copy(t)) line += fixed(r.pct_copy, "%.0f %%") + " | ";
    line += fixed(r.speedup_vs_previous, "%.2f×") + " | " + fixed(r.cumulative, "%.2f×") + " | " +
            fixed(r.vs_reference, "%.2f×") + " |\n";
    return line;
}

// A lower bound's time: microseconds where milliseconds would print as 0.0000.
std::string bound_text(double ms)
{
    char buf[32];
    if (ms < 0.01) std::snprintf(buf, sizeof buf, "%.3g µs", ms * 1e3);
    else std::snprintf(buf, sizeof buf, "%s ms", ms_text(ms).c_str());
    return buf;
}

// The roofline's lower bound: the work the table's rates count (bytes moved,
// or matmul's 2·M·N·K FLOP) at the recorded peak. The work is a timed row's
// rate × time, so that it counts what the rates count: a transpose reads and
// writes n × n elements, a reduction reads n.
std::string markdown_bound(const BenchTable& t)
{
    const auto timed = std::find_if(t.rows.begin(), t.rows.end(), [](const BenchRow& r) { return r.rate > 0 && r.median_ms > 0; });
    if (timed == t.rows.end()) return "no row was timed";
    if (t.peak <= 0) return "no peak from clocks; each row's bound is its links' (see the links below)";
    const double work = timed->rate * timed->median_ms / 1e3;  // GB or GFLOP
    const double bound_ms = work / t.peak * 1e3;
    char buf[200];
    if (t.rate_unit == "GFLOP/s") {
        std::snprintf(buf, sizeof buf,
                      "%.1f GFLOP at the FP32 peak of %.0f GFLOP/s: no kernel on the FP32 lanes can take less than %s "
                      "(TF32 rows run on the tensor cores, whose peak is higher)",
                      work, t.peak, bound_text(bound_ms).c_str());
    } else {
        std::snprintf(buf, sizeof buf, "%.3g GB moved at the DRAM peak of %.0f GB/s: no kernel can take less than %s", work,
                      t.peak, bound_text(bound_ms).c_str());
    }
    return buf;
}

// Where and how the table was measured; the copy kernel's rate only for one table (it differs by size).
std::string markdown_provenance(const BenchTable& t, bool one_table)
{
    const Provenance& p = t.provenance;
    std::string text = "<sub>" + p.gpu + ", " + std::to_string(p.sms) + " SMs, CUDA " + p.cuda_runtime + ", driver " +
                       p.driver + (t.warm ? "; L2 kept warm" : "; L2 flushed before each run");
    char buf[160];
    if (has_copy(t) && one_table) {
        std::snprintf(buf, sizeof buf, "; copy kernel (read + write) %.0f GB/s in the same run", t.copy_rate);
        text += buf;
    }
    if (t.peak > 0) {
        std::snprintf(buf, sizeof buf, "; peak from clocks %.0f %s", t.peak, t.rate_unit.c_str());
        text += buf;
    }
    return text + "; warplab " + p.commit + ", " + p.date.substr(0, 10) + ".</sub>\n";
}

bool selected(const BenchRow& r, const std::vector<std::string>& versions)
{
    return std::any_of(versions.begin(), versions.end(),
                       [&](const std::string& v) { return v == r.version || (v == "ref" && r.reference); });
}

// A grid of cells as aligned text (first column left, the rest right) or markdown.
std::string grid(const std::vector<std::vector<std::string>>& rows, bool markdown)
{
    std::ostringstream out;
    if (markdown) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            for (const std::string& c : rows[i]) out << "| " << c << " ";
            out << "|\n";
            if (i == 0) {
                out << "|---|---|";
                for (std::size_t k = 2; k < rows[i].size(); ++k) out << "--:|";
                out << "\n";
            }
        }
        return out.str();
    }
    std::vector<std::size_t> width;
    for (const auto& r : rows)
        for (std::size_t k = 0; k < r.size(); ++k) {
            width.resize(std::max(width.size(), r.size()));
            width[k] = std::max(width[k], r[k].size());
        }
    for (const auto& r : rows) {
        std::string line;
        for (std::size_t k = 0; k < r.size(); ++k) {
            const std::string pad(width[k] - r[k].size(), ' ');
            line += (k ? "  " : "") + (k < 2 ? r[k] + pad : pad + r[k]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out << line << "\n";
    }
    return out.str();
}

std::string optional_text(const std::optional<double>& v, const char* format)
{
    return v ? fixed(*v, format) : "-";
}

std::string short_gpu(const std::string& gpu) { return gpu.empty() ? "GPU not named" : gpu; }

}  // namespace

std::string published_beside(const PublishedTable& p, const BenchTable* now, const std::vector<std::string>& lab_versions,
                             bool markdown)
{
    std::ostringstream out;
    const std::string nowname = now ? now->provenance.gpu : "";
    out << (markdown ? "**" : "") << "Then and now: " << p.lab << ", " << short_gpu(p.gpu) << " (published) beside "
        << (now ? nowname + " (recorded " + now->provenance.date.substr(0, 10) + ")" : std::string("no recorded table of type ") + p.type)
        << (markdown ? "**" : "") << "\n\n";
    const std::string indent = markdown ? "- " : "  ";
    out << indent << "published: " << p.citation << "; " << p.where << ".\n";
    out << indent << "measured: " << p.measured << "; " << p.type << ", n " << p.n_printed << ", block "
        << (p.block ? std::to_string(static_cast<long long>(*p.block)) : std::string("not printed")) << ".\n";
    // The recording's note to its first clause: "the input (16 MiB) fits in the 50 MiB L2".
    const std::string clause = now ? now->note.substr(0, now->note.find_first_of(":;")) : "";
    if (now) out << indent << "recorded: " << size_label(*now) << (clause.empty() ? "" : " (" + clause + ")") << ".\n";
    out << "\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{"version", "published row"};
    const bool times = std::any_of(p.rows.begin(), p.rows.end(), [](const PublishedRow& r) { return r.time.has_value(); });
    const bool rates = std::any_of(p.rows.begin(), p.rows.end(), [](const PublishedRow& r) { return r.rate.has_value(); });
    if (times) head.push_back("then " + p.time_unit);
    if (rates) head.push_back("then " + p.rate_unit);
    head.push_back("then vs previous");
    if (now) {
        head.push_back("now ms");
        head.push_back("now " + now->rate_unit);
        head.push_back("now vs previous");
    }
    rows.push_back(head);
    for (std::size_t i = 0; i < p.rows.size(); ++i) {
        const PublishedRow& r = p.rows[i];
        std::vector<std::string> cells{r.version.empty() ? "none" : r.version + (r.mapping.empty() ? "" : " (close)"), r.label};
        if (times) cells.push_back(optional_text(r.time, "%.6g"));
        if (rates) cells.push_back(optional_text(r.rate, "%.6g"));
        const PublishedSpeedup step = published_speedup(p, i);
        cells.push_back(fixed(step.value, "%.2fx"));
        if (now) {
            const BenchRow* row = nullptr;
            for (const BenchRow& b : now->rows)
                if (!r.version.empty() && b.version == r.version) row = &b;
            cells.push_back(row ? ms_text(row->median_ms) : "-");
            cells.push_back(row ? rate_text(row->rate) : "-");
            cells.push_back(fixed(recorded_speedup(p, i, *now), "%.2fx"));
        }
        rows.push_back(cells);
    }
    out << grid(rows, markdown) << "\n";
    std::vector<const char*> hows;
    for (std::size_t i = 1; i < p.rows.size(); ++i)
        if (const char* how = published_speedup(p, i).how; *how && std::find(hows.begin(), hows.end(), how) == hows.end())
            hows.push_back(how);
    std::string how_text;
    for (const char* h : hows) how_text += (how_text.empty() ? "" : ", ") + std::string(h);
    out << indent << "then vs previous: the speed-up over the row before, " << (how_text.empty() ? "none printed" : how_text)
        << (now ? "; now vs previous: the recorded median times of the same two versions" : "") << ".\n";
    std::string missing;
    for (const std::string& v : lab_versions)
        if (std::none_of(p.rows.begin(), p.rows.end(), [&](const PublishedRow& r) { return r.version == v; }))
            missing += (missing.empty() ? "" : ", ") + v;
    if (!missing.empty()) out << indent << "no published row for: " << missing << ".\n";
    for (const PublishedRow& r : p.rows)
        if (!r.mapping.empty()) out << indent << r.version << " (close): " << r.mapping << ".\n";
    for (const std::string& note : p.notes) out << indent << "note: " << note << "\n";
    return out.str() + "\n";
}

std::string published_statements(const PublishedStatements& s, bool markdown)
{
    std::ostringstream out;
    std::string gpus;
    for (const std::string& g : s.gpus) gpus += (gpus.empty() ? "" : ", ") + g;
    out << (markdown ? "**" : "") << "In words only: " << s.lab << ", " << gpus << (markdown ? "**" : "") << "\n\n";
    const std::string indent = markdown ? "- " : "  ";
    out << indent << "published: " << s.citation << ".\n" << indent << "measured: " << s.measured << ".\n";
    for (const std::string& t : s.text) out << indent << t << "\n";
    return out.str() + "\n";
}

std::string bench_text(const BenchTable& t, const std::string& source)
{
    std::ostringstream out;
    const Provenance& p = t.provenance;
    // Several dimensions (matmul: M×N×K), or n.
    const std::string size = t.shape.empty() ? "n = " + size_text(t.n) : joined(t.shape, "x");
    out << t.lab << ", " << size << " " << t.type << (t.warm ? ", warm L2" : ", L2 flushed before each run")
        << "; " << source << " " << p.gpu << " (" << p.date << ")\n";
    if (!t.note.empty()) out << "note: " << t.note << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-22s %9s %9s %9s %7s %7s %7s %7s %8s  %s\n", "version", "median ms", "min ms",
                  t.rate_unit.c_str(), "vs prev", "vs v1", "% peak", "% copy", "vs ref", "ok");
    out << line;
    for (const BenchRow& r : t.rows) {
        std::snprintf(line, sizeof line, "%-22s %9.4f %9.4f %9.1f %7s %7s %7s %7s %8s  %s\n",
                      (r.version + (r.variant ? " *" : "")).c_str(), r.median_ms, r.min_ms, r.rate,
                      fixed(r.speedup_vs_previous, "%.2fx").c_str(), fixed(r.cumulative, "%.1fx").c_str(),
                      fixed(r.pct_peak, "%.1f").c_str(), fixed(r.pct_copy, "%.1f").c_str(),
                      fixed(r.vs_reference, "%.2fx").c_str(), r.ok ? "yes" : "WRONG");
        out << line;
    }
    if (t.peak > 0) {  // transfers has none: its rows are compared with their links' bound
        std::snprintf(line, sizeof line, "peak: %.0f %s theoretical", t.peak, t.rate_unit.c_str());
        out << line;
        if (t.copy_rate > 0) {
            std::snprintf(line, sizeof line, "; copy kernel %.0f GB/s (read + write) in this run", t.copy_rate);
            out << line;
        }
        out << ". ";
    }
    out << "vs ref: reference time / version time (1.00x = as fast as the reference). * = marked variant.\n";
    out << "provenance: driver " << p.driver << ", CUDA " << p.cuda_runtime << ", SM clock " << p.sm_clock_mhz
        << " MHz, memory clock " << p.mem_clock_mhz << " MHz x " << p.bus_width_bits << " bits, commit " << p.commit
        << ", command: " << p.command << "\n";
    return out.str();
}

std::string bench_csv(const BenchTable& t)
{
    std::ostringstream out;
    out << "lab,type,n,warm,version,reference,variant,ok,median_ms,min_ms,rate,rate_unit,speedup_vs_previous,cumulative,pct_peak,"
           "pct_copy,vs_reference,gpu,date,commit\n";
    for (const BenchRow& r : t.rows)
        out << t.lab << "," << t.type << "," << t.n << "," << t.warm << ",\"" << r.version << "\"," << r.reference << ","
            << r.variant << "," << r.ok << "," << r.median_ms << "," << r.min_ms << "," << r.rate << "," << t.rate_unit
            << "," << r.speedup_vs_previous << "," << r.cumulative << "," << r.pct_peak << "," << r.pct_copy << ","
            << r.vs_reference << ",\"" << t.provenance.gpu << "\"," << t.provenance.date << "," << t.provenance.commit
            << "\n";
    return out.str();
}

std::string bench_markdown(const std::vector<BenchTable>& tables, const std::vector<std::string>& versions)
{
    std::ostringstream out;
    if (tables.empty()) return "";
    if (versions.empty()) {
        for (const BenchTable& t : tables) {
            out << "**" << size_label(t) << "**: " << markdown_bound(t) << ".\n\n" << markdown_header(t, false);
            for (const BenchRow& r : t.rows) out << markdown_row(t, r, false);
            out << "\n" << markdown_provenance(t, true) << "\n";
        }
        return out.str();
    }
    out << markdown_header(tables.front(), true);
    for (const BenchTable& t : tables)
        for (const BenchRow& r : t.rows)
            if (selected(r, versions)) out << markdown_row(t, r, true);
    out << "\n" << markdown_provenance(tables.front(), tables.size() == 1);
    return out.str();
}

}  // namespace warplab::cli
