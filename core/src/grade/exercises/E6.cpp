// E6 checks: tiled matrix multiply C = A B^T (exercises/E6_tiled_matmul_abt).
// Compiled by the grader into a harness, after the student's kernel.cuh.
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
Finding run_matmul(const MatmulInput& in, std::uint64_t lane_seed, std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const std::vector<float> before(std::size_t(in.M) * in.N, std::numeric_limits<float>::quiet_NaN());
    const float* dA = to_device(emu, in.A);
    const float* dB = to_device(emu, in.B);
    float* dC = to_device(emu, before);
    const dim3 grid((in.N + kTile - 1) / kTile, (in.M + kTile - 1) / kTile);
    emu.launch("matmul_abt", &exercise::matmul_abt<kTile>, grid, dim3(kTile, kTile), dA, dB, dC, in.M, in.N, in.K);
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

const std::vector<MatmulInput>& inputs()
{
    static const std::vector<MatmulInput> all = [] {
        // A = 1 (20x18), B[j][k] = j - k (24x18): C[i][j] = sum over k = 0..17 of (j - k) = 18j - 153.
        MatmulInput pattern{"pattern: 20x24x18, A = 1, B[j][k] = j - k, C[i][j] = 18j - 153", 20, 24, 18,
                            std::vector<float>(20 * 18, 1.0f), std::vector<float>(24 * 18)};
        for (unsigned j = 0; j < 24; ++j)
            for (unsigned k = 0; k < 18; ++k) pattern.B[j * 18 + k] = float(int(j) - int(k));
        std::vector<MatmulInput> v{pattern, seeded(64, 64, 64, 1, "seeded random")};
        v.push_back(seeded(1, 1, 1, 2));
        v.push_back(seeded(17, 33, 15, 3));
        v.push_back(seeded(37, 50, 29, 4));
        v.push_back(seeded(128, 96, 80, 5, "many blocks (6x8 = 48)"));
        return v;
    }();
    return all;
}

Verdict correct()
{
    const MatmulInput& p = inputs()[0];
    const std::vector<float> C = reference(p);
    for (unsigned i = 0; i < p.M; ++i)
        for (unsigned j = 0; j < p.N; ++j)
            if (C[i * p.N + j] != 18.0f * j - 153.0f)
                throw std::logic_error("grader bug: the pattern's C derived by hand disagrees with the reference");
    const auto run = [](const MatmulInput& in, std::uint64_t lane_seed) { return run_matmul(in, lane_seed, nullptr); };
    return run_cases(cases_of(inputs(), run), "right C = A B^T");
}

// Global loads of block 0 (lanes that loaded, all steps) per output element, at 64x64x64.
Verdict loads_per_output(const Harness& h)
{
    const MatmulInput in = seeded(64, 64, 64, 11, "traced");
    std::vector<trace::LaneRecord> records;
    if (Finding f = run_matmul(in, 1, &records))
        throw std::runtime_error("the traced run (64x64x64) gave a wrong result: " + f->measured);
    const BlockView v = view_block(records, 0, kTile * kTile);
    unsigned long long loads = 0;
    std::string sites;
    for (const trace::WarpEvent& e : v.block.events) {
        if (e.space != trace::Space::Global || e.kind != trace::Kind::Load) continue;
        loads += __builtin_popcount(e.mask);
        const std::string s = h.site(e.site);
        if (sites.find(s) == std::string::npos) sites += (sites.empty() ? "" : ", ") + s;
    }
    const unsigned outputs = kTile * kTile, K = in.K;
    const double per_output = double(loads) / outputs, limit = 2.0 * K / kTile;
    const std::string measured = "block 0 made " + std::to_string(loads) + " global loads for its " +
                                 std::to_string(outputs) + " outputs: " + str(per_output) + " per output (K = " +
                                 std::to_string(K) + ", TILE = " + std::to_string(kTile) + ")";
    if (per_output <= limit) return pass(measured);
    return fail(measured,
                "at most 2K / TILE = " + str(limit) + " per output (the naive kernel makes 2K = " + std::to_string(2 * K) +
                    ")",
                "global loads at " + sites);
}

void grade(Harness& h)
{
    h.check(kCorrect, [] { return correct(); });
    h.check("loads_per_output", [&] { return loads_per_output(h); });
}

}  // namespace wl::grade::e6
