// E6 checks: tiled matrix multiply C = A B^T (exercises/E6_tiled_matmul_abt).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "harness/harness.h"

namespace wl::grade::e6 {

constexpr unsigned kTile = 16;

// C (M x N) = A (M x K) B^T, with B N x K: C[i][j] = sum over k of A[i][k] B[j][k]. All row-major.
struct MatmulInput {
    std::string name;
    unsigned M, N, K;
    std::vector<float> A, B;
    std::string hint = {};
    bool main = false;  // a main case (harness.h's Case::main)
};

std::vector<float> reference(const MatmulInput& in)
{
    std::vector<float> C(std::size_t(in.M) * in.N);
    for (unsigned i = 0; i < in.M; ++i)
        for (unsigned j = 0; j < in.N; ++j) {
            double acc = 0;
            for (unsigned k = 0; k < in.K; ++k) acc += double(in.A[i * in.K + k]) * in.B[j * in.K + k];
            C[i * in.N + j] = static_cast<float>(acc);
        }
    return C;
}

// Runs the kernel on (TILE, TILE) blocks over a (ceil(N/TILE), ceil(M/TILE)) grid.
Finding run_matmul(const Harness& h, const MatmulInput& in, std::uint64_t lane_seed,
                   std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const std::vector<float> before(std::size_t(in.M) * in.N, std::numeric_limits<float>::quiet_NaN());
    const float* dA = to_device(emu, in.A);
    const float* dB = to_device(emu, in.B);
    float* dC = to_device(emu, before);
    const dim3 grid((in.N + kTile - 1) / kTile, (in.M + kTile - 1) / kTile);
    launch(emu, h, "exercise::matmul_abt<16u>", grid, dim3(kTile, kTile), dA, dB, dC, in.M, in.N, in.K);
    if (records) *records = emu.take_records();
    // Whole numbers up to 4 in magnitude: every partial sum is exact in float, in any order.
    return compare_floats(to_host(emu, dC, before.size()), reference(in), 0, 1e-3,
                          [&](std::size_t e) {
                              return "C[" + std::to_string(e / in.N) + "][" + std::to_string(e % in.N) + "]";
                          },
                          before);
}

MatmulInput seeded(unsigned M, unsigned N, unsigned K, std::uint64_t seed, std::string label = "odd shape")
{
    return {label + ": " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " (MxNxK), seed " +
                std::to_string(seed),
            M, N, K, random_whole_floats(std::size_t(M) * K, seed, -4, 4),
            random_whole_floats(std::size_t(N) * K, seed + 1000, -4, 4)};
}

// The published pattern, then inputs from this run's seed.
std::vector<MatmulInput> inputs(std::uint64_t seed)
{
    // A = 1 (20x18), B[j][k] = j - k (24x18): C[i][j] = sum over k = 0..17 of (j - k) = 18j - 153.
    MatmulInput pattern{"pattern: 20x24x18, A = 1, B[j][k] = j - k, C[i][j] = 18j - 153", 20, 24, 18,
                        std::vector<float>(20 * 18, 1.0f), std::vector<float>(24 * 18)};
    for (unsigned j = 0; j < 24; ++j)
        for (unsigned k = 0; k < 18; ++k) pattern.B[j * 18 + k] = float(int(j) - int(k));
    std::vector<MatmulInput> v{pattern, main_case(seeded(64, 64, 64, seed, "seeded random"))};
    v.push_back(seeded(1, 1, 1, seed + 1));
    v.push_back(seeded(17, 33, 15, seed + 2));
    v.push_back(seeded(37, 50, 29, seed + 3));
    v.push_back(seeded(128, 96, 80, seed + 4, "many blocks (6x8 = 48)"));
    return v;
}

Verdict correct(const Harness& h)
{
    const std::vector<MatmulInput> all = inputs(h.seed());
    const MatmulInput& p = all[0];
    const std::vector<float> C = reference(p);
    for (unsigned i = 0; i < p.M; ++i)
        for (unsigned j = 0; j < p.N; ++j)
            if (C[i * p.N + j] != 18.0f * j - 153.0f)
                throw std::logic_error("grader bug: the pattern's C derived by hand disagrees with the reference");
    const auto run = [&](const MatmulInput& in, std::uint64_t lane_seed) { return run_matmul(h, in, lane_seed, nullptr); };
    return run_cases(cases_of(all, run), "right C = A B^T");
}

// The tiled shape at 64x64x64 (K / TILE = 4 phases): every thread of block 0
// loads one element of the A tile and one of the B tile a phase, 2 * 4 = 8
// loads, and no element twice: 256 threads x 8 = 2048 distinct words (rows
// 0..15 of A and of B, 16 x 64 each). A thread that loads the whole tile for
// the others makes 256 x 8 loads alone.
Finding tile_loads_shape(const BlockView& v, unsigned K)
{
    const unsigned phases = (K + kTile - 1) / kTile, each = 2 * phases;
    const std::vector<unsigned> loads = per_thread(v, is_global_load);
    const auto [fewest, most] = std::minmax_element(loads.begin(), loads.end());
    unsigned long long total = 0;
    for (unsigned l : loads) total += l;
    const std::size_t distinct = distinct_words(v, is_global_load);
    if (*fewest == each && *most == each && distinct == total) return std::nullopt;
    return fail("the threads of block 0 made " + range_text(*fewest, *most) + " global loads each; " +
                    std::to_string(distinct) + " distinct elements of " + std::to_string(total) + " loads",
                "each thread loads one A and one B element a phase: " + std::to_string(each) + " each (" +
                    std::to_string(phases) + " phases), no element loaded twice",
                "block 0 (64x64x64)",
                "thread (tx, ty) loads As[ty][tx] and Bs[ty][tx] of each phase: one element of each tile, so that "
                "the block loads each tile element once");
}

// Global loads of block 0 (lanes that loaded, all steps) per output element, at 64x64x64.
Verdict loads_per_output(const Harness& h)
{
    const MatmulInput in = seeded(64, 64, 64, h.seed() + 100, "traced");
    std::vector<trace::LaneRecord> records;
    require_right(run_matmul(h, in, 1, &records), "64x64x64");
    const BlockView v = view_block(h, records, kTile * kTile);
    unsigned long long loads = 0;
    std::string sites;
    for (const trace::WarpEvent& e : v.block.events) {
        if (e.space != trace::Space::Global || e.kind != trace::Kind::Load) continue;
        loads += std::popcount(e.mask);
        const std::string s = h.site(e.site);
        if (sites.find(s) == std::string::npos) sites += (sites.empty() ? "" : ", ") + s;
    }
    const unsigned outputs = kTile * kTile, K = in.K;
    const double per_output = double(loads) / outputs, limit = 2.0 * K / kTile;
    const std::string measured = "block 0 made " + std::to_string(loads) + " global loads for its " +
                                 std::to_string(outputs) + " outputs: " + str(per_output) + " per output (K = " +
                                 std::to_string(K) + ", TILE = " + std::to_string(kTile) + ")";
    if (per_output > limit)
        return fail(measured,
                    "at most 2K / TILE = " + str(limit) + " per output (the naive kernel makes 2K = " +
                        std::to_string(2 * K) + ")",
                    "global loads at " + sites);
    if (Finding f = tile_loads_shape(v, K)) return *f;
    return pass(measured + "; each tile element loaded once a phase");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    h.check("loads_per_output", [&] { return loads_per_output(h); });
}

}  // namespace wl::grade::e6
