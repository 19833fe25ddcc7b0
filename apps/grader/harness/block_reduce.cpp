#include "harness/block_reduce.h"

#include <cstdlib>

namespace wl::grade {

std::vector<int> tent_pattern()
{
    std::vector<int> v(1000);
    for (int i = 0; i < 1000; ++i) v[i] = 300 - std::abs(i - 701);
    return v;
}

std::vector<int> ramp(int first, int step, unsigned n)
{
    std::vector<int> v(n);
    for (unsigned i = 0; i < n; ++i) v[i] = first + step * static_cast<int>(i);
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
        const std::string right = std::to_string(reduce_range(p, in, 0, n));
        return fail("your kernel's " + p.what + " was " + std::to_string(combined) + "; the right " + p.what + " is " +
                        right + ". Block " + std::to_string(b) + " of " + std::to_string(got.size()) + " wrote " +
                        std::to_string(got[b]) + " for in[" + std::to_string(first) + " .. " +
                        std::to_string(last - 1) + "]",
                    "the " + p.what + " " + right + "; block " + std::to_string(b) + " should write " +
                        std::to_string(expected));
    }
    return std::nullopt;
}

std::string kernel_at(const BlockReduction& p, unsigned block)
{
    if (block != 128 && block != 256) throw std::logic_error("grader bug: the kernels are instantiated at 128 and 256");
    return p.kernel + "<" + std::to_string(block) + "u>";
}

Finding run_reduction(const Harness& h, const BlockReduction& p, const std::vector<int>& in, unsigned block,
                      const ReductionRun& r)
{
    emu::Emulator emu;
    configure(emu, r.schedule, r.lane_seed, r.records != nullptr);
    const auto n = static_cast<unsigned>(in.size());
    const unsigned blocks = (n + block - 1) / block;
    const int* d_in = to_device(emu, in);
    int* d_out = emu.alloc<int>(blocks);
    launch(emu, h, kernel_at(p, block), dim3(blocks), dim3(block), d_in, d_out, n);
    if (r.records) *r.records = emu.take_records();
    return compare_blocks(p, in, block, to_host(emu, d_out, blocks));
}

namespace {

struct ReductionInput {
    std::string name;
    std::vector<int> data;
    unsigned block;
    std::string hint = {};
    bool main = false;  // a main case (harness.h's Case::main)
};

// The published pattern, then random inputs from this run's seed (so that no
// answer can be memorised), odd sizes, many blocks, then the exercise's edges.
std::vector<ReductionInput> reduction_inputs(const Harness& h, const BlockReduction& p)
{
    const std::uint64_t seed = h.seed();
    auto named = [&](const std::string& what, std::uint64_t s) { return what + ", seed " + std::to_string(s); };
    std::vector<ReductionInput> inputs{{p.pattern_name, p.pattern, 256},
                                       main_case(ReductionInput{named("seeded random: n = 4096", seed),
                                                                random_ints(4096, seed, p.lo, p.hi), 256})};
    std::uint64_t s = seed + 1;
    for (std::size_t n : {1u, 31u, 33u, 257u}) {
        inputs.push_back({named("odd size: n = " + std::to_string(n), s), random_ints(n, s, p.lo, p.hi), 256});
        ++s;
    }
    inputs.push_back({named("many blocks: n = 65539 (2^16 + 3), block 128, 513 blocks", s),
                      random_ints(65539, s, p.lo, p.hi), 128});
    for (const BlockReduction::Edge& e : p.edges) inputs.push_back({e.name, e.input, 256, e.hint});
    return inputs;
}

}  // namespace

Verdict check_reduction(const Harness& h, const BlockReduction& p)
{
    if (reduce_range(p, p.pattern, 0, p.pattern.size()) != p.pattern_result)
        throw std::logic_error("grader bug: the pattern's result derived by hand disagrees with the reference");
    const std::vector<ReductionInput> inputs = reduction_inputs(h, p);
    return run_cases(cases_of(inputs,
                              [&](const ReductionInput& in, std::uint64_t lane_seed) {
                                  return run_reduction(h, p, in.data, in.block,
                                                       {emu::Schedule::Independent, lane_seed, nullptr});
                              }),
                     "right " + p.what);
}

BlockView trace_reduction(const Harness& h, const BlockReduction& p)
{
    std::vector<trace::LaneRecord> records;
    const std::vector<int> in = random_ints(4096, h.seed() + 100, p.lo, p.hi);
    require_right(run_reduction(h, p, in, 256, {emu::Schedule::Independent, 1, &records}), "n = 4096, block 256");
    return view_block(h, records, 256);
}

Verdict check_no_race(const Harness& h, const BlockReduction& p)
{
    const std::vector<int> in = random_ints(4096, h.seed() + 200, p.lo, p.hi);
    for (std::uint64_t lane_seed = 101; lane_seed <= 108; ++lane_seed) {
        const std::string name = "lane order " + std::to_string(lane_seed - 100) + " of 8 (n = 4096, block 256)";
        try {
            if (Finding f = run_reduction(h, p, in, 256, {emu::Schedule::Independent, lane_seed, nullptr})) {
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
