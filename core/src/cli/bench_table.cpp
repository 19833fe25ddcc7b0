#include "bench_table.h"

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

std::string size_text(std::size_t n)
{
    for (int k = 40; k >= 10; --k)
        if (n == (std::size_t(1) << k)) return "2^" + std::to_string(k);
    return std::to_string(n);
}

}  // namespace

std::string bench_text(const BenchTable& t, const std::string& source)
{
    std::ostringstream out;
    const Provenance& p = t.provenance;
    std::string size = "n = " + size_text(t.n);
    if (!t.shape.empty()) {  // several dimensions (matmul: M×N×K)
        size.clear();
        for (std::size_t d : t.shape) size += (size.empty() ? "" : "x") + std::to_string(d);
    }
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
    std::snprintf(line, sizeof line, "peak: %.0f %s theoretical", t.peak, t.rate_unit.c_str());
    out << line;
    if (t.copy_rate > 0) {
        std::snprintf(line, sizeof line, "; copy kernel %.0f GB/s (read + write) in this run", t.copy_rate);
        out << line;
    }
    out << ". vs ref: reference time / version time (1.00x = as fast as the reference). * = marked variant.\n";
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

}  // namespace warplab::cli
