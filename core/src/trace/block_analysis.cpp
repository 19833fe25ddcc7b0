#include "warplab/trace/block_analysis.h"

#include <utility>

namespace wl::trace {

BlockAnalysis analyze_block(const std::vector<LaneRecord>& records, std::uint32_t block, std::uint32_t threads_in_block,
                            const MachineCode* code, unsigned warp_size)
{
    std::vector<LaneRecord> mine;
    for (const LaneRecord& r : records)
        if (r.block == block) mine.push_back(r);
    BlockAnalysis out;
    out.block = group_block(block, threads_in_block, std::move(mine), warp_size);
    if (code) out.block = as_machine_instructions(out.block, *code);
    out.per_machine_instruction = code != nullptr;
    out.steps = analyze_steps(out.block);
    out.totals = totals(out.steps);
    out.shared_after = shared_contents(out.block);
    return out;
}

}  // namespace wl::trace
