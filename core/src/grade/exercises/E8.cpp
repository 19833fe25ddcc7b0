// E8 checks: grid-stride SAXPY (exercises/E8_grid_stride_saxpy).
// Compiled by the grader into a harness, after the student's kernel.cuh.
#include "harness/harness.h"

namespace wl::grade::e8 {

// y = a x + y with a fixed, small grid: the kernel must loop to cover any n.
struct SaxpyInput {
    std::string name;
    float a;
    std::vector<float> x, y;
    unsigned blocks = 4, threads = 128;
    std::string hint = {};
};

Finding run_saxpy(const SaxpyInput& in, std::uint64_t lane_seed, std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const auto n = static_cast<unsigned>(in.x.size());
    const float* dx = to_device(emu, in.x);
    float* dy = to_device(emu, in.y);
    emu.launch("saxpy", &exercise::saxpy, dim3(in.blocks), dim3(in.threads), in.a, dx, dy, n);
    if (records) *records = emu.take_records();
    std::vector<float> expected(n);
    for (unsigned i = 0; i < n; ++i) expected[i] = in.a * in.x[i] + in.y[i];
    // One rounding apart at most (a fused multiply-add rounds once).
    return compare_floats(to_host(emu, dy, n), expected, 1e-6, 1e-6,
                          [](std::size_t i) { return "y[" + std::to_string(i) + "]"; }, in.y);
}

SaxpyInput seeded(std::string label, std::size_t n, std::uint64_t seed, unsigned blocks = 4, unsigned threads = 128,
                  std::string hint = {})
{
    return {label + ": n = " + std::to_string(n) + ", seed " + std::to_string(seed) + ", " + std::to_string(blocks) +
                " blocks of " + std::to_string(threads),
            2.5f, random_floats(n, seed, -1, 1), random_floats(n, seed + 1000, -1, 1), blocks, threads,
            std::move(hint)};
}

const std::vector<SaxpyInput>& inputs()
{
    static const std::vector<SaxpyInput> all = [] {
        // a = 2, x[i] = i, y[i] = 1: y[i] becomes 2i + 1 (y[999] = 1999), exact in float.
        SaxpyInput pattern{"pattern: n = 1000, a = 2, x[i] = i, y[i] = 1, 4 blocks of 128", 2.0f,
                           std::vector<float>(1000), std::vector<float>(1000, 1.0f)};
        for (unsigned i = 0; i < 1000; ++i) pattern.x[i] = float(i);
        const std::string stride_hint = "step by the whole grid, blockDim.x * gridDim.x, not by a constant";
        std::vector<SaxpyInput> v{pattern, seeded("seeded random", 4096, 1)};
        std::uint64_t seed = 2;
        for (std::size_t n : {1u, 31u, 33u, 257u}) v.push_back(seeded("odd size", n, seed++));
        v.push_back(seeded("many iterations", 65539, 6));
        v.push_back(seeded("empty", 0, 7));
        v.push_back(seeded("another grid", 1000, 8, 3, 64, stride_hint));
        v.push_back(seeded("one warp", 100, 9, 1, 32, stride_hint));
        return v;
    }();
    return all;
}

Verdict correct()
{
    const auto run = [](const SaxpyInput& in, std::uint64_t lane_seed) { return run_saxpy(in, lane_seed, nullptr); };
    return run_cases(cases_of(inputs(), run), "right y");
}

// Block 0 at n = 10000 with 4 blocks of 128: about 20 iterations a thread.
Verdict ideal_load_sectors(const Harness& h)
{
    std::vector<trace::LaneRecord> records;
    if (Finding f = run_saxpy(seeded("traced", 10000, 11), 1, &records))
        throw std::runtime_error("the traced run (n = 10000) gave a wrong result: " + f->measured);
    const BlockView v = view_block(records, 0, 128);
    if (Finding f = first_uncoalesced(h, v, trace::Kind::Load)) return *f;
    const trace::Totals t = trace::totals(v.steps);
    if (t.global_load.requests == 0) return fail("block 0 made no global load", "the loads of x and y");
    return pass("all " + std::to_string(t.global_load.requests) + " global loads of block 0 at the ideal: " +
                str(t.global_load.sectors_per_request()) + " sectors per request (n = 10000, 4 blocks of 128)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [] { return correct(); });
    h.check("ideal_load_sectors", [&] { return ideal_load_sectors(h); });
}

}  // namespace wl::grade::e8
