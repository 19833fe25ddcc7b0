// E2 checks: min-reduction with sequential addressing (exercises/E2_min_sequential_addressing).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include "harness/block_reduce.h"

namespace wl::grade::e2 {

const BlockReduction& problem()
{
    static const BlockReduction p{
        "exercise::block_min", "min", [](int x) { return x; }, [](int a, int b) { return a < b ? a : b; },
        -1'000'000'000, 1'000'000'000,
        // The tent turned upside down: its min is -300, at i = 701 (odd: thread 189 of block 2).
        [] {
            std::vector<int> v = tent_pattern();
            for (int& x : v) x = -x;
            return v;
        }(),
        -300, "pattern: n = 1000, in[i] = |i - 701| - 300 (its min is -300)",
        // A block padded with 0 instead of INT_MAX gives 0 here; the min is in[0] = 1000.
        {{"all positive: n = 33, in[i] = 1000 + i, min 1000", ramp(1000, 1, 33),
          "pad the missing elements of a partial block with INT_MAX, not 0: here every input is positive"}}};
    return p;
}

// The tree's shape first (one thread reading the block's words one by one has
// no conflict to show), then its banks.
Verdict no_bank_conflicts(const Harness& h)
{
    const BlockView v = trace_reduction(h, problem());
    if (Finding f = reduction_shape(v, 256)) return *f;
    if (Finding f = first_bank_conflict(h, v)) return *f;
    const trace::Totals t = trace::totals(v.steps);
    return pass("a tree of 8 halving rounds, every shared access at its ideal: " + std::to_string(t.shared_load.wavefronts + t.shared_store.wavefronts) +
                " wavefronts in block 0 (n = 4096, block 256)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return check_reduction(h, problem()); });
    h.check("no_bank_conflicts", [&] { return no_bank_conflicts(h); });
}

}  // namespace wl::grade::e2
