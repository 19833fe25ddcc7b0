#include "labs/common/bench.h"

namespace warplab {

double dram_peak_gbps(const Provenance& p) { return 2.0 * p.mem_clock_mhz * 1e6 * (p.bus_width_bits / 8) / 1e9; }

void derive_ratios(BenchTable& table)
{
    const BenchRow* first = nullptr;
    const BenchRow* previous = nullptr;
    const BenchRow* reference = nullptr;
    for (const BenchRow& r : table.rows)
        if (r.reference) reference = &r;
    for (BenchRow& r : table.rows) {
        if (table.peak > 0) r.pct_peak = 100.0 * r.rate / table.peak;
        if (table.copy_rate > 0) r.pct_copy = 100.0 * r.rate / table.copy_rate;
        if (reference && r.median_ms > 0) r.vs_reference = reference->median_ms / r.median_ms;
        if (r.reference) continue;
        if (!first) first = &r;
        const BenchRow* from = previous;
        if (!r.previous_version.empty())
            for (const BenchRow& other : table.rows)
                if (other.version == r.previous_version) from = &other;
        if (from && r.median_ms > 0) r.speedup_vs_previous = from->median_ms / r.median_ms;
        if (r.median_ms > 0) r.cumulative = first->median_ms / r.median_ms;
        if (!r.variant) previous = &r;
    }
}

}  // namespace warplab
