// Two traces side by side (compare.h).
#include "warplab/trace/compare.h"

#include <algorithm>
#include <tuple>

#include "warplab/trace/kinds.h"

namespace wl::trace {
namespace {

// What of a warp event two versions can share: not its site, step or values.
using Access = std::tuple<Kind, Space, std::uint8_t, std::uint8_t, std::uint32_t, LaneMask, std::vector<std::uint64_t>>;

Access access_of(const WarpEvent& e)
{
    std::vector<std::uint64_t> offsets;
    for_each_lane(e.mask, [&](unsigned lane) { offsets.push_back(e.offset[lane]); });
    return {e.kind, e.space, e.array, e.size, e.warp, e.mask, std::move(offsets)};
}

// Per step, its accesses sorted: the same multiset whatever order the lanes ran in.
std::vector<std::vector<Access>> accesses_by_step(const BlockTrace& b)
{
    std::vector<std::vector<Access>> out(b.steps.size());
    for (const WarpEvent& e : b.events)
        if (e.step < out.size() && is_work(e.kind)) out[e.step].push_back(access_of(e));  // a barrier is no access
    for (auto& step : out) std::sort(step.begin(), step.end());
    return out;
}

}  // namespace

std::vector<bool> differing_steps(const BlockTrace& a, const BlockTrace& b)
{
    const auto in_a = accesses_by_step(a), in_b = accesses_by_step(b);
    std::vector<bool> out(std::max(in_a.size(), in_b.size()));
    for (std::size_t s = 0; s < out.size(); ++s) out[s] = s >= in_a.size() || s >= in_b.size() || in_a[s] != in_b[s];
    return out;
}

std::optional<std::uint32_t> first_differing_step(const std::vector<bool>& differing)
{
    const auto it = std::find(differing.begin(), differing.end(), true);
    if (it == differing.end()) return std::nullopt;
    return static_cast<std::uint32_t>(it - differing.begin());
}

}  // namespace wl::trace
