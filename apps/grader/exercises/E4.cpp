// E4 checks: sum with a warp-shuffle tail (exercises/E4_sum_warp_shuffle).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include <algorithm>
#include <bit>
#include <climits>
#include <map>

#include "harness/block_reduce.h"

namespace wl::grade::e4 {

const BlockReduction& problem()
{
    static const BlockReduction p{"exercise::block_sum", "sum", [](int x) { return x; }, [](int a, int b) { return a + b; },
                                  -1000, 1000,
                                  // The tent's sum is 9398 (harness/block_reduce.h).
                                  tent_pattern(), 9398, "pattern: n = 1000, in[i] = 300 - |i - 701| (its sum is 9398)", {}};
    return p;
}

using trace::is_collective;

// The parallel shape: a halving tree down to 64 sums, then warp 0 alone, in
// log2(32) = 5 shuffle rounds of all 32 lanes, or one __reduce_add_sync of
// all 32 (what cg::reduce compiles to on sm_80 and later), which folds the
// 32 at once: 5 rounds, as reduction_shape counts it.
Finding sum_shape(const BlockView& v)
{
    if (Finding f = reduction_shape(v, 256)) return f;
    unsigned rounds = 0;
    for (const trace::WarpEvent& e : v.block.events) {
        if (e.warp != 0 || e.mask != 0xffffffffu) continue;
        rounds += e.kind == trace::Kind::Shuffle ? 1 : e.kind == trace::Kind::Vote ? 5 : 0;
    }
    if (rounds >= 5) return std::nullopt;
    return fail("warp 0 of block 0 made " + std::to_string(rounds) + (rounds == 1 ? " shuffle" : " shuffles") +
                    " with all 32 lanes",
                "5 shuffle rounds (offsets 16, 8, 4, 2, 1), each by all 32 lanes of warp 0 (or one __reduce_add_sync)",
                "block 0 (n = 4096, block 256)");
}

// The warp stage of a barrier interval: from its first warp collective to its
// last (steps are (epoch, collectives completed so far)). A shared access in
// between is a tail that still goes through shared memory.
Verdict shuffle_tail(const Harness& h)
{
    const BlockView v = trace_reduction(h, problem());
    struct Stage {
        std::uint32_t first = UINT_MAX, last = 0;
    };
    std::map<std::uint32_t, Stage> stages;
    unsigned collectives = 0;  // shuffles and warp reductions (__reduce_add_sync, cg::reduce)
    for (const trace::WarpEvent& e : v.block.events) {
        if (!is_collective(e.kind)) continue;
        Stage& s = stages[e.key.epoch];
        s.first = std::min(s.first, e.key.sub);
        s.last = std::max(s.last, e.key.sub);
        collectives += e.kind == trace::Kind::Shuffle || e.kind == trace::Kind::Vote;
    }
    for (const trace::WarpEvent& e : v.block.events) {
        if (e.space != trace::Space::Shared || is_collective(e.kind)) continue;
        auto it = stages.find(e.key.epoch);
        if (it == stages.end() || e.key.sub <= it->second.first || e.key.sub > it->second.last) continue;
        return fail("step " + std::to_string(e.step) + ": a shared-memory " +
                        trace::kind_name(e.kind) + " by " +
                        std::to_string(std::popcount(e.mask)) + " lanes of warp " + std::to_string(e.warp) +
                        " between the warp's first and last collective",
                    "no shared-memory access in the warp stage: the lanes exchange values by shuffles",
                    "step " + std::to_string(e.step) + ", " + h.site(e.site));
    }
    if (collectives == 0)
        return fail("block 0 made no warp shuffle", "a warp stage done with __shfl_down_sync (or __reduce_add_sync)");
    if (Finding f = sum_shape(v)) return *f;
    return pass("no shared-memory access between the first and last of block 0's " + std::to_string(collectives) +
                (collectives == 1 ? " warp collective" : " warp collectives"));
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return check_reduction(h, problem()); });
    h.check("shuffle_tail", [&] { return shuffle_tail(h); });
    // A kernel without parallelism has no race to show: the tree's shape first.
    h.check("no_race", [&] {
        if (Finding f = reduction_shape(trace_reduction(h, problem()), 256)) return *f;
        return check_no_race(h, problem());
    });
}

}  // namespace wl::grade::e4
