// The per-block reductions of E1, E2, E4 and E5: block b reduces
// in[b*BLOCK, (b+1)*BLOCK) (fewer in the last block) into out[b]; the host
// combines the blocks' results. One case list, one runner, one comparison.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/harness.h"

namespace wl::grade {

struct BlockReduction {
    std::string kernel;                  // "exercise::block_max": the template, launched as block_max<256u>
    std::string what;                    // "max", "sum of squares"
    std::function<int(int)> map;         // applied to each element first (identity, or x*x)
    std::function<int(int, int)> combine;
    int lo = 0, hi = 0;                  // seeded random inputs in [lo, hi]
    std::vector<int> pattern;            // the first case: its result is derived by hand
    int pattern_result = 0;
    std::string pattern_name;
    struct Edge {
        std::string name;
        std::vector<int> input;
        std::string hint;  // what a wrong result on it usually means
    };
    std::vector<Edge> edges;             // exercise-specific edge cases
};

// 300 - |i - 701| for i = 0..999: rises from -401 (i = 0) to 300 (i = 701), then
// falls to 2 (i = 999). Its max is 300, at an odd index (701 = block 2, thread
// 189 of a 256-thread block); its sum is 300 * 1000 - (701 * 702 / 2 + 298 * 299 / 2)
// = 300000 - (246051 + 44551) = 9398.
std::vector<int> tent_pattern();
// n ints from `first`, `step` apart: first, first + step, ... (an input all on one side of zero).
std::vector<int> ramp(int first, int step, unsigned n);

// The reference: what one block (or the whole input) must give.
int reduce_range(const BlockReduction& p, const std::vector<int>& in, std::size_t first, std::size_t last);

// The kernel at a block size the grader instantiates (catalog.h's calls).
std::string kernel_at(const BlockReduction& p, unsigned block);

// Compares the blocks' results with the reference; the first wrong block is named.
Finding compare_blocks(const BlockReduction& p, const std::vector<int>& in, unsigned block,
                       const std::vector<int>& got);

struct ReductionRun {
    emu::Schedule schedule = emu::Schedule::Independent;
    std::uint64_t lane_seed = 1;
    std::vector<trace::LaneRecord>* records = nullptr;  // block 0's records, when wanted
};

// Launches the kernel over `in` with ceil(n / block) blocks and checks the result.
Finding run_reduction(const Harness& h, const BlockReduction& p, const std::vector<int>& in, unsigned block,
                      const ReductionRun& r);

// The correctness check: the pattern (its result derived by hand, checked
// first), this run's seeded random cases, odd sizes, many blocks, the edges.
Verdict check_reduction(const Harness& h, const BlockReduction& p);

// Block 0's trace for n = 4096 ints at block 256 (16 full blocks), this run's seed.
BlockView trace_reduction(const Harness& h, const BlockReduction& p);

// Runs n = 4096 at block 256 under the independent schedule with 8 lane orders:
// no fault (no race) and the right result every time.
Verdict check_no_race(const Harness& h, const BlockReduction& p);

}  // namespace wl::grade
