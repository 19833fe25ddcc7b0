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
            " | step speedup | cumulative | vs " + reference_name(t) + " |\n";
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
    line += fixed(r.step_speedup, "%.2f×") + " | " + fixed(r.cumulative, "%.2f×") + " | " +
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

}  // namespace

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
                  t.rate_unit.c_str(), "step", "vs v1", "% peak", "% copy", "vs ref", "ok");
    out << line;
    for (const BenchRow& r : t.rows) {
        std::snprintf(line, sizeof line, "%-22s %9.4f %9.4f %9.1f %7s %7s %7s %7s %8s  %s\n",
                      (r.version + (r.variant ? " *" : "")).c_str(), r.median_ms, r.min_ms, r.rate,
                      fixed(r.step_speedup, "%.2fx").c_str(), fixed(r.cumulative, "%.1fx").c_str(),
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
    out << "lab,type,n,warm,version,reference,variant,ok,median_ms,min_ms,rate,rate_unit,step_speedup,cumulative,pct_peak,"
           "pct_copy,vs_reference,gpu,date,commit\n";
    for (const BenchRow& r : t.rows)
        out << t.lab << "," << t.type << "," << t.n << "," << t.warm << ",\"" << r.version << "\"," << r.reference << ","
            << r.variant << "," << r.ok << "," << r.median_ms << "," << r.min_ms << "," << r.rate << "," << t.rate_unit
            << "," << r.step_speedup << "," << r.cumulative << "," << r.pct_peak << "," << r.pct_copy << ","
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
