// The per-block reductions of E1, E2, E4 and E5: block b reduces
// in[b*BLOCK, (b+1)*BLOCK) (fewer in the last block) into out[b]; the host
// combines the blocks' results. One case list, one runner, one comparison.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/harness.h"

namespace wl::grade {

struct BlockReduction {
    std::string kernel;                  // "block_max", for fault reports
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

// The reference: what one block (or the whole input) must give.
int reduce_range(const BlockReduction& p, const std::vector<int>& in, std::size_t first, std::size_t last);

// Block sizes the harness instantiates the kernel for.
template <class F> void with_block(unsigned block, F&& f)
{
    if (block == 128) f.template operator()<128>();
    else if (block == 256) f.template operator()<256>();
    else throw std::logic_error("the harness runs block sizes 128 and 256 only");
}

// Compares the blocks' results with the reference; the first wrong block is named.
Finding compare_blocks(const BlockReduction& p, const std::vector<int>& in, unsigned block,
                       const std::vector<int>& got);

struct ReductionRun {
    emu::Schedule schedule = emu::Schedule::Independent;
    std::uint64_t lane_seed = 1;
    std::vector<trace::LaneRecord>* records = nullptr;  // block 0's records, when wanted
};

// Launches kernel_for<B>() over `in` with ceil(n / block) blocks and checks the result.
template <class KernelFor>
Finding run_reduction(const BlockReduction& p, const std::vector<int>& in, unsigned block, const ReductionRun& r,
                      KernelFor kernel_for)
{
    emu::Emulator emu;
    configure(emu, r.schedule, r.lane_seed, r.records != nullptr);
    const auto n = static_cast<unsigned>(in.size());
    const unsigned blocks = (n + block - 1) / block;
    int* d_in = to_device(emu, in);
    int* d_out = emu.alloc<int>(blocks);
    with_block(block, [&]<unsigned B>() {
        emu.launch(p.kernel.c_str(), kernel_for.template operator()<B>(), dim3(blocks), dim3(B), d_in, d_out, n);
    });
    if (r.records) *r.records = emu.take_records();
    return compare_blocks(p, in, block, to_host(emu, d_out, blocks));
}

// The standard cases: the pattern, seeded random, odd sizes, many blocks, then the edges.
template <class KernelFor> std::vector<Case> reduction_cases(const BlockReduction& p, KernelFor kernel_for)
{
    struct Input {
        std::string name;
        std::vector<int> data;
        unsigned block;
        std::string hint = {};
    };
    std::vector<Input> inputs{{p.pattern_name, p.pattern, 256},
                              {"seeded random: n = 4096, seed 1", random_ints(4096, 1, p.lo, p.hi), 256}};
    std::uint64_t seed = 2;
    for (std::size_t n : {1u, 31u, 33u, 257u}) {
        inputs.push_back({"odd size: n = " + std::to_string(n) + ", seed " + std::to_string(seed),
                          random_ints(n, seed, p.lo, p.hi), 256});
        ++seed;
    }
    inputs.push_back({"many blocks: n = 65539 (2^16 + 3), block 128, 513 blocks, seed 6",
                      random_ints(65539, 6, p.lo, p.hi), 128});
    for (const BlockReduction::Edge& e : p.edges) inputs.push_back({e.name, e.input, 256, e.hint});
    std::vector<Case> cases;
    std::uint64_t lane_seed = 1;
    for (Input& in : inputs) {
        ReductionRun run{emu::Schedule::Independent, lane_seed++, nullptr};
        cases.push_back({in.name, [&p, kernel_for, data = std::move(in.data), block = in.block, run] {
                             return run_reduction(p, data, block, run, kernel_for);
                         },
                         in.hint});
    }
    return cases;
}

// The correctness check of a block reduction (checks the pattern's hand-derived result first).
template <class KernelFor> Verdict check_reduction(const BlockReduction& p, KernelFor kernel_for)
{
    if (reduce_range(p, p.pattern, 0, p.pattern.size()) != p.pattern_result)
        throw std::logic_error("grader bug: the pattern's result derived by hand disagrees with the reference");
    return run_cases(reduction_cases(p, kernel_for), "right " + p.what);
}

// Block 0's trace for n = 4096 ints at block 256 (16 full blocks).
template <class KernelFor> BlockView trace_reduction(const BlockReduction& p, KernelFor kernel_for)
{
    std::vector<trace::LaneRecord> records;
    const std::vector<int> in = random_ints(4096, 1, p.lo, p.hi);
    if (Finding f = run_reduction(p, in, 256, {emu::Schedule::Independent, 1, &records}, kernel_for))
        throw std::runtime_error("the traced run (n = 4096, block 256) gave a wrong result: " + f->measured);
    return view_block(records, 0, 256);
}

// Runs n = 4096 at block 256 under the independent schedule with 8 lane orders:
// no fault (no race) and the right result every time.
template <class KernelFor> Verdict check_no_race(const BlockReduction& p, KernelFor kernel_for)
{
    const std::vector<int> in = random_ints(4096, 7, p.lo, p.hi);
    for (std::uint64_t lane_seed = 101; lane_seed <= 108; ++lane_seed) {
        const std::string name = "lane order " + std::to_string(lane_seed - 100) + " of 8 (n = 4096, block 256)";
        try {
            if (Finding f = run_reduction(p, in, 256, {emu::Schedule::Independent, lane_seed, nullptr}, kernel_for)) {
                f->measured = name + ": " + f->measured;
                return *f;
            }
        } catch (const std::exception& e) {
            return fault_verdict(e, name);
        }
    }
    return pass("no race and the right " + p.what + " under 8 lane orders of the independent schedule");
}

}  // namespace wl::grade
