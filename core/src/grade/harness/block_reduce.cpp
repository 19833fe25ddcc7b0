#include "harness/block_reduce.h"

#include <cstdlib>

namespace wl::grade {

std::vector<int> tent_pattern()
{
    std::vector<int> v(1000);
    for (int i = 0; i < 1000; ++i) v[i] = 300 - std::abs(i - 701);
    return v;
}

int reduce_range(const BlockReduction& p, const std::vector<int>& in, std::size_t first, std::size_t last)
{
    int acc = p.map(in.at(first));
    for (std::size_t i = first + 1; i < last; ++i) acc = p.combine(acc, p.map(in[i]));
    return acc;
}

Finding compare_blocks(const BlockReduction& p, const std::vector<int>& in, unsigned block, const std::vector<int>& got)
{
    const std::size_t n = in.size();
    for (std::size_t b = 0; b < got.size(); ++b) {
        const std::size_t first = b * block, last = std::min(n, first + block);
        const int expected = reduce_range(p, in, first, last);
        if (got[b] == expected) continue;
        int combined = got[0];
        for (std::size_t k = 1; k < got.size(); ++k) combined = p.combine(combined, got[k]);
        return fail("the " + p.what + " is " + std::to_string(combined) + "; block " + std::to_string(b) + " of " +
                        std::to_string(got.size()) + " wrote " + std::to_string(got[b]) + " for in[" +
                        std::to_string(first) + " .. " + std::to_string(last - 1) + "]",
                    std::to_string(reduce_range(p, in, 0, n)) + " (block " + std::to_string(b) + " should write " +
                        std::to_string(expected) + ")");
    }
    return std::nullopt;
}

}  // namespace wl::grade
