// E7 checks: matrix transpose through shared memory (exercises/E7_transpose_shared).
// Compiled by the grader into a harness, after the student's kernel.cuh.
#include <algorithm>
#include <limits>

#include "harness/harness.h"

namespace wl::grade::e7 {

constexpr unsigned kTile = 32, kRows = 8;

// in is rows x cols, out is cols x rows, both row-major.
struct TransposeInput {
    std::string name;
    unsigned rows, cols;
    std::vector<float> in;
};

// Runs the kernel on (TILE, ROWS) blocks over a (ceil(cols/TILE), ceil(rows/TILE)) grid.
Finding run_transpose(const TransposeInput& t, std::uint64_t lane_seed, std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const std::vector<float> before(t.in.size(), std::numeric_limits<float>::quiet_NaN());
    const float* d_in = to_device(emu, t.in);
    float* d_out = to_device(emu, before);
    const dim3 grid((t.cols + kTile - 1) / kTile, (t.rows + kTile - 1) / kTile);
    emu.launch("transpose", &exercise::transpose<kTile, kRows>, grid, dim3(kTile, kRows), d_in, d_out, t.rows, t.cols);
    if (records) *records = emu.take_records();
    std::vector<float> expected(t.in.size());
    for (unsigned r = 0; r < t.rows; ++r)
        for (unsigned c = 0; c < t.cols; ++c) expected[std::size_t(c) * t.rows + r] = t.in[std::size_t(r) * t.cols + c];
    return compare_floats(to_host(emu, d_out, before.size()), expected, 0, 0,
                          [&](std::size_t e) {
                              return "out[" + std::to_string(e / t.rows) + "][" + std::to_string(e % t.rows) + "]";
                          },
                          before);
}

TransposeInput seeded(unsigned rows, unsigned cols, std::uint64_t seed, std::string label = "odd shape")
{
    return {label + ": " + std::to_string(rows) + "x" + std::to_string(cols) + ", seed " + std::to_string(seed), rows,
            cols, random_floats(std::size_t(rows) * cols, seed, -1, 1)};
}

const std::vector<TransposeInput>& inputs()
{
    static const std::vector<TransposeInput> all = [] {
        // in[r][c] = 100r + c (32x64), so out[c][r] must read 100r + c: out[5][3] = 305.
        TransposeInput pattern{"pattern: 32x64, in[r][c] = 100r + c", 32, 64, std::vector<float>(32 * 64)};
        for (unsigned r = 0; r < 32; ++r)
            for (unsigned c = 0; c < 64; ++c) pattern.in[r * 64 + c] = float(100 * r + c);
        return std::vector<TransposeInput>{pattern,           seeded(64, 96, 1, "seeded random"), seeded(1, 1, 2),
                                           seeded(33, 31, 3), seeded(37, 50, 4),
                                           seeded(200, 256, 5, "many blocks (8x7 = 56)")};
    }();
    return all;
}

Verdict correct()
{
    const auto run = [](const TransposeInput& t, std::uint64_t lane_seed) { return run_transpose(t, lane_seed, nullptr); };
    return run_cases(cases_of(inputs(), run), "right transpose");
}

// Block 0 of a 64x64 transpose: a full 32x32 tile.
BlockView traced_block()
{
    std::vector<trace::LaneRecord> records;
    if (Finding f = run_transpose(seeded(64, 64, 11, "traced"), 1, &records))
        throw std::runtime_error("the traced run (64x64) gave a wrong result: " + f->measured);
    return view_block(records, 0, kTile * kRows);
}

unsigned count_events(const BlockView& v, trace::Space space, std::initializer_list<trace::Kind> kinds)
{
    unsigned n = 0;
    for (const trace::WarpEvent& e : v.block.events)
        n += e.space == space && std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end();
    return n;
}

Verdict coalesced_stores(const Harness& h)
{
    const BlockView v = traced_block();
    if (Finding f = first_uncoalesced(h, v, trace::Kind::Store)) return *f;
    return pass("all " + std::to_string(count_events(v, trace::Space::Global, {trace::Kind::Store})) +
                " global stores of block 0 at the ideal sectors per request (64x64)");
}

Verdict no_bank_conflicts(const Harness& h)
{
    const BlockView v = traced_block();
    const unsigned shared = count_events(v, trace::Space::Shared, {trace::Kind::Load, trace::Kind::Store});
    if (shared == 0)
        return fail("block 0 made no shared-memory access", "the transpose goes through a shared tile");
    if (Finding f = first_bank_conflict(h, v)) return *f;
    return pass("all " + std::to_string(shared) + " shared accesses of block 0 conflict-free (64x64)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [] { return correct(); });
    h.check("coalesced_stores", [&] { return coalesced_stores(h); });
    h.check("no_bank_conflicts", [&] { return no_bank_conflicts(h); });
}

}  // namespace wl::grade::e7
