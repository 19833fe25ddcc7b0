// E1 checks: max-reduction without divergent branching (exercises/E1_max_no_divergence).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include <climits>

#include "harness/block_reduce.h"

namespace wl::grade::e1 {

const BlockReduction& problem()
{
    static const BlockReduction p{
        "exercise::block_max", "max", [](int x) { return x; }, [](int a, int b) { return a > b ? a : b; },
        -1'000'000'000, 1'000'000'000,
        // The tent's max is 300 (harness/block_reduce.h).
        tent_pattern(), 300, "pattern: n = 1000, in[i] = 300 - |i - 701| (its max is 300)",
        // A block padded with 0 instead of INT_MIN gives 0 here; the max is in[0] = -1000.
        {{"all negative: n = 33, in[i] = -1000 - i, max -1000", ramp(-1000, -1, 33),
          "pad the missing elements of a partial block with INT_MIN, not 0: here every input is negative"}}};
    return p;
}

// The tree's shape first (a thread looping over the block has no partial warp
// to show), then its warps.
Verdict whole_warps(const Harness& h)
{
    const BlockView v = trace_reduction(h, problem());
    if (Finding f = reduction_shape(v, 256)) return *f;
    if (Finding f = first_partial_warp(h, v)) return *f;
    return pass("a tree of 8 halving rounds, no partially-active warp at an access that " + std::to_string(graded_warp_width()) +
                " or more threads make (block 0; n = 4096, block 256)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return check_reduction(h, problem()); });
    h.check("whole_warps", [&] { return whole_warps(h); });
}

}  // namespace wl::grade::e1
