// E5 checks: fix a racy warp-synchronous unroll (exercises/E5_fix_racy_warp_unroll).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include <set>

#include "harness/block_reduce.h"

namespace wl::grade::e5 {

const BlockReduction& problem()
{
    static const BlockReduction p{
        "exercise::block_sum_squares", "sum of squares", [](int x) { return x * x; }, [](int a, int b) { return a + b; },
        -100, 100,
        // i % 7 - 3 runs -3..3: squares 9 4 1 0 1 4 9, 28 a period. 1000 = 142 * 7 + 6,
        // so the sum is 142 * 28 + (9 + 4 + 1 + 0 + 1 + 4) = 3976 + 19 = 3995.
        [] {
            std::vector<int> v(1000);
            for (int i = 0; i < 1000; ++i) v[i] = i % 7 - 3;
            return v;
        }(),
        3995, "pattern: n = 1000, in[i] = i % 7 - 3 (its sum of squares is 3995)", {}};
    return p;
}

// Threads of the block that write shared memory in barrier intervals after `epoch`: 2 or more, and a
// tail's rounds go on past its barrier.
unsigned shared_writers_after(const BlockView& v, std::uint32_t epoch)
{
    std::set<std::size_t> writers;
    for (const trace::WarpEvent& e : v.block.events)
        if (e.key.epoch > epoch && is_shared_write(e))
            trace::for_each_lane(e.mask, [&](unsigned lane) { writers.insert(trace::thread_of(v.block, e, lane)); });
    return static_cast<unsigned>(writers.size());
}

// A __syncthreads() that ends a step in which fewer than 64 threads work, with the tail's rounds going
// on after it (a barrier between its rounds). One after the whole tail, before thread 0 writes the
// block's sum, splits none of them: it only costs a barrier.
Verdict warp_level_tail(const Harness& h)
{
    const BlockView v = trace_reduction(h, problem());
    if (Finding f = reduction_shape(v, 256)) return *f;
    for (const trace::StepMetrics& m : v.steps) {
        if (!m.has_barrier_end || m.active_threads == 0 || m.active_threads >= 64) continue;
        if (shared_writers_after(v, m.key.epoch) < 2) continue;
        std::string where = "step " + std::to_string(m.step);
        for (const trace::WarpEvent& e : v.block.events)
            if (e.step == m.step && e.kind == trace::Kind::SyncThreads) {
                where += ", " + h.site(e.site);
                break;
            }
        return fail("step " + std::to_string(m.step) + " ends at a __syncthreads() with only " +
                        std::to_string(m.active_threads) + " threads working",
                    "no __syncthreads() once fewer than 64 threads work: the last warp synchronises with __syncwarp()",
                    where);
    }
    return pass("every __syncthreads() ends a step of 64 or more working threads (block 0; n = 4096, block 256)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return check_reduction(h, problem()); });
    // A kernel without parallelism has no race to show: the shape first.
    h.check("no_race", [&] {
        if (Finding f = reduction_shape(trace_reduction(h, problem()), 256)) return *f;
        return check_no_race(h, problem());
    });
    h.check("warp_level_tail", [&] { return warp_level_tail(h); });
}

}  // namespace wl::grade::e5
