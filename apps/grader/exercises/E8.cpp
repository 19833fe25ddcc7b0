// E8 checks: grid-stride SAXPY (exercises/E8_grid_stride_saxpy).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include <algorithm>

#include "harness/harness.h"

namespace wl::grade::e8 {

// y = a x + y with a fixed, small grid: the kernel must loop to cover any n.
struct SaxpyInput {
    std::string name;
    float a;
    std::vector<float> x, y;
    unsigned blocks = 4, threads = 128;
    std::string hint = {};
    bool main = false;  // a main case (harness.h's Case::main)
};

Finding run_saxpy(const Harness& h, const SaxpyInput& in, std::uint64_t lane_seed,
                  std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const auto n = static_cast<unsigned>(in.x.size());
    const float* dx = to_device(emu, in.x);
    float* dy = to_device(emu, in.y);
    launch(emu, h, "exercise::saxpy", dim3(in.blocks), dim3(in.threads), in.a, dx, dy, n);
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

// The published pattern, then inputs from this run's seed.
std::vector<SaxpyInput> inputs(std::uint64_t seed0)
{
    // a = 2, x[i] = i, y[i] = 1: y[i] becomes 2i + 1 (y[999] = 1999), exact in float.
    SaxpyInput pattern{"pattern: n = 1000, a = 2, x[i] = i, y[i] = 1, 4 blocks of 128", 2.0f,
                       std::vector<float>(1000), std::vector<float>(1000, 1.0f)};
    for (unsigned i = 0; i < 1000; ++i) pattern.x[i] = float(i);
    const std::string stride_hint = "step by the whole grid, blockDim.x * gridDim.x, not by a constant";
    std::vector<SaxpyInput> v{pattern, main_case(seeded("seeded random", 4096, seed0))};
    std::uint64_t seed = seed0 + 1;
    for (std::size_t n : {1u, 31u, 33u, 257u}) v.push_back(seeded("odd size", n, seed++));
    v.push_back(seeded("many iterations", 65539, seed++));
    v.push_back(seeded("empty", 0, seed++));
    v.push_back(seeded("another grid", 1000, seed++, 3, 64, stride_hint));
    v.push_back(seeded("one warp", 100, seed++, 1, 32, stride_hint));
    return v;
}

Verdict correct(const Harness& h)
{
    const auto run = [&](const SaxpyInput& in, std::uint64_t lane_seed) { return run_saxpy(h, in, lane_seed, nullptr); };
    return run_cases(cases_of(inputs(h.seed()), run), "right y");
}

// The grid-stride shape: the grader's grid (4 x 128 = 512 threads) is far
// smaller than n / BLOCK = 10000 / 128, so every thread takes its share:
// thread t of the grid handles the i = t, t + 512, ... below n, 20 of them for
// the threads of block 0 (10000 = 19 x 512 + 272). Elements are counted as
// the bytes a thread loaded (x and y, 8 a element), so vectorised loads count
// the same. One block doing everything: about 10000 / 128 = 78 a thread.
Finding everyone_takes_a_share(const BlockView& v, unsigned n, unsigned grid_threads)
{
    const unsigned few = n / grid_threads, many = (n + grid_threads - 1) / grid_threads;
    std::vector<unsigned> elements = per_thread_bytes(v, is_global_load);
    for (unsigned& e : elements) e /= 2 * sizeof(float);
    const auto [fewest, most] = std::minmax_element(elements.begin(), elements.end());
    if (*fewest >= few && *most <= many) return std::nullopt;
    return fail("the threads of block 0 loaded " + range_text(*fewest, *most) + " elements each (of x and of y)",
                std::to_string(few) + " to " + std::to_string(many) + ": n / (gridDim.x * blockDim.x) elements each, "
                "every thread of the grid taking its share",
                "block 0 (n = " + std::to_string(n) + ", 4 blocks of 128)",
                "every block and every thread works: i starts at blockIdx.x * blockDim.x + threadIdx.x and steps by "
                "blockDim.x * gridDim.x");
}

// Block 0 at n = 10000 with 4 blocks of 128: about 20 iterations a thread.
Verdict ideal_load_sectors(const Harness& h)
{
    std::vector<trace::LaneRecord> records;
    require_right(run_saxpy(h, seeded("traced", 10000, h.seed() + 100), 1, &records), "n = 10000");
    const BlockView v = view_block(h, records, 128);
    if (Finding f = first_uncoalesced(h, v, trace::Kind::Load)) return *f;
    const trace::Totals t = trace::totals(v.steps);
    if (t.global_load.requests == 0) return fail("block 0 made no global load", "the loads of x and y");
    if (Finding f = everyone_takes_a_share(v, 10000, 4 * 128)) return *f;
    return pass("all " + std::to_string(t.global_load.requests) + " global loads of block 0 at the ideal: " +
                str(t.global_load.sectors_per_request()) + " sectors per request (n = 10000, 4 blocks of 128)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    h.check("ideal_load_sectors", [&] { return ideal_load_sectors(h); });
}

}  // namespace wl::grade::e8
