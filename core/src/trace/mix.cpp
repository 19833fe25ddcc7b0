// The instruction mix's sums over a traced block (mix.h).
#include "warplab/trace/mix.h"

#include <algorithm>
#include <numeric>

#include "warplab/trace/events.h"

namespace wl::trace {

std::vector<ClassCounts> mix_by_step(const BlockTrace& block)
{
    std::size_t steps = block.steps.size();
    for (const MixCount& m : block.mix) steps = std::max<std::size_t>(steps, m.step + 1);
    std::vector<ClassCounts> by_step(steps, ClassCounts{});
    for (const MixCount& m : block.mix) by_step[m.step][static_cast<std::size_t>(m.cls)] += m.count;
    return by_step;
}

ClassCounts mix_total(const BlockTrace& block)
{
    ClassCounts total{};
    for (const MixCount& m : block.mix) total[static_cast<std::size_t>(m.cls)] += m.count;
    return total;
}

std::uint64_t instructions(const ClassCounts& counts) { return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}); }

}  // namespace wl::trace
