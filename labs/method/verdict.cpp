#include "labs/method/verdict.h"

#include <cstdio>

namespace warplab::method {

namespace {

const BenchRow* row_of(const BenchTable& t, const char* version)
{
    for (const BenchRow& r : t.rows)
        if (r.version == version && r.ok && r.median_ms > 0) return &r;
    return nullptr;
}

}  // namespace

Bound bound_of(double full_ms, double memory_ms, double compute_ms)
{
    const bool memory_near = memory_ms >= kNear * full_ms, compute_near = compute_ms >= kNear * full_ms;
    if (memory_near && compute_near) return Bound::Both;
    if (memory_near) return Bound::Memory;
    if (compute_near) return Bound::Compute;
    return Bound::Latency;
}

std::string bound_text(Bound b)
{
    switch (b) {
    case Bound::Memory: return "memory-bound (the memory alone takes about the full time)";
    case Bound::Compute: return "compute-bound (the instructions alone take about the full time)";
    case Bound::Both: return "bound by both (each alone takes about the full time: optimise both)";
    case Bound::Latency: return "latency-bound (neither alone comes near the full time: they do not overlap)";
    }
    return "";
}

std::string verdict_lines(const BenchTable& table)
{
    std::string out;
    for (const BottleneckSearch& s : kSearches) {
        const BenchRow *full = row_of(table, s.full), *memory = row_of(table, s.memory_only), *compute = row_of(table, s.compute_only);
        if (!full || !memory || !compute) continue;
        char line[320];
        std::snprintf(line, sizeof line, "%s kernel: full %.4f ms (%s), memory-only %.4f ms (%s), compute-only %.4f ms (%s): %s\n",
                      s.kernel, full->median_ms, s.full, memory->median_ms, s.memory_only, compute->median_ms, s.compute_only,
                      bound_text(bound_of(full->median_ms, memory->median_ms, compute->median_ms)).c_str());
        out += line;
    }
    return out;
}

}  // namespace warplab::method
