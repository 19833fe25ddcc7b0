#include "warplab/trace/block_analysis.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "warplab/parts.h"

namespace wl::trace {
namespace {

// Where the recorder stopped early, the barrier interval it stopped in holds
// some threads' accesses and not others': the intervals before it are whole
// (every thread passed the barrier that ends them). Leaves that interval
// out where an earlier one exists; says where the trace ends.
TraceEnd drop_incomplete_interval(std::vector<LaneRecord>& records)
{
    std::uint32_t last = 0;
    for (const LaneRecord& r : records)
        if (r.kind != Kind::Declare) last = std::max(last, r.epoch);
    if (last == 0) return TraceEnd::InLastStep;
    std::erase_if(records, [last](const LaneRecord& r) { return r.epoch == last && r.kind != Kind::Declare; });
    return TraceEnd::AfterLastStep;
}

}  // namespace

BlockAnalysis analyze_block(std::vector<LaneRecord> records, std::uint32_t block, std::uint32_t threads_in_block,
                            const MachineCode* code, unsigned warp_size, bool records_cut, std::uint64_t budget_bytes)
{
    return analyze_block(std::move(records), block, threads_in_block, code, warp_size, records_cut, {}, budget_bytes);
}

BlockAnalysis analyze_block(std::vector<LaneRecord> records, std::uint32_t block, std::uint32_t threads_in_block,
                            const MachineCode* code, unsigned warp_size, bool records_cut,
                            const std::function<void(BlockTrace&)>& name_arrays, std::uint64_t budget_bytes)
{
    std::erase_if(records, [block](const LaneRecord& r) { return r.block != block; });
    const TraceEnd recorded = records_cut ? drop_incomplete_interval(records) : TraceEnd::Whole;
    BlockAnalysis out;
    // Each step keeps a copy of shared memory (shared_contents): an element and its map's share.
    const TraceBudget budget{budget_bytes, sizeof(std::optional<std::uint64_t>)};
    out.block = group_block(block, threads_in_block, std::move(records), warp_size, budget);
    if (out.block.end == TraceEnd::Whole) out.block.end = recorded;
    if (code) out.block = as_machine_instructions(std::move(out.block), *code);
    out.per_machine_instruction = code != nullptr;
    if (name_arrays) name_arrays(out.block);
    // Both read the block only: side by side where the host has two threads.
    wl::side_by_side(
        [&] {
            out.steps = analyze_steps(out.block);
            out.totals = totals(out.steps);
        },
        [&] { out.shared_after = shared_contents(out.block); });
    return out;
}

}  // namespace wl::trace
