// E7 checks: matrix transpose through shared memory (exercises/E7_transpose_shared).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "harness/harness.h"

namespace wl::grade::e7 {

constexpr unsigned kTile = 32, kRows = 8;

// in is rows x cols, out is cols x rows, both row-major.
struct TransposeInput {
    std::string name;
    unsigned rows, cols;
    std::vector<float> in;
    bool main = false;  // a main case (harness.h's Case::main)
};

// Runs the kernel on (TILE, ROWS) blocks over a (ceil(cols/TILE), ceil(rows/TILE)) grid.
Finding run_transpose(const Harness& h, const TransposeInput& t, std::uint64_t lane_seed,
                      std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const std::vector<float> before(t.in.size(), std::numeric_limits<float>::quiet_NaN());
    const float* d_in = to_device(emu, t.in);
    float* d_out = to_device(emu, before);
    const dim3 grid((t.cols + kTile - 1) / kTile, (t.rows + kTile - 1) / kTile);
    launch(emu, h, "exercise::transpose<32u, 8u>", grid, dim3(kTile, kRows), d_in, d_out, t.rows, t.cols);
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

// The published pattern, then inputs from this run's seed.
std::vector<TransposeInput> inputs(std::uint64_t seed)
{
    // in[r][c] = 100r + c (32x64), so out[c][r] must read 100r + c: out[5][3] = 305.
    TransposeInput pattern{"pattern: 32x64, in[r][c] = 100r + c", 32, 64, std::vector<float>(32 * 64)};
    for (unsigned r = 0; r < 32; ++r)
        for (unsigned c = 0; c < 64; ++c) pattern.in[r * 64 + c] = float(100 * r + c);
    return std::vector<TransposeInput>{pattern,
                                       main_case(seeded(64, 96, seed, "seeded random")),
                                       seeded(1, 1, seed + 1),
                                       seeded(33, 31, seed + 2),
                                       seeded(37, 50, seed + 3),
                                       seeded(200, 256, seed + 4, "many blocks (8x7 = 56)")};
}

Verdict correct(const Harness& h)
{
    const auto run = [&](const TransposeInput& t, std::uint64_t lane_seed) {
        return run_transpose(h, t, lane_seed, nullptr);
    };
    return run_cases(cases_of(inputs(h.seed()), run), "right transpose");
}

// The traced input: the values k / 4096 for k < rows * cols (exact floats, all
// distinct, so each value names its element) in an order shuffled by the seed.
// Random floats may repeat, and a repeated value names no element: a warp
// reading a row of 32 columns was then seen as reading 31.
TransposeInput distinct(unsigned rows, unsigned cols, std::uint64_t seed)
{
    TransposeInput t{"traced: " + std::to_string(rows) + "x" + std::to_string(cols) + ", distinct values, seed " +
                         std::to_string(seed),
                     rows, cols, std::vector<float>(std::size_t(rows) * cols)};
    for (std::size_t k = 0; k < t.in.size(); ++k) t.in[k] = float(k) / 4096.0f;
    std::mt19937_64 rng(seed);
    for (std::size_t i = t.in.size() - 1; i > 0; --i) std::swap(t.in[i], t.in[rng() % (i + 1)]);
    return t;
}

// Block 0 of a 64x64 transpose (a full 32x32 tile), and its input.
struct TracedBlock {
    TransposeInput input;
    BlockView view;
};

TracedBlock traced_block(const Harness& h)
{
    TracedBlock t{distinct(64, 64, h.seed() + 100), {}};
    std::vector<trace::LaneRecord> records;
    require_right(run_transpose(h, t.input, 1, &records), "64x64");
    t.view = view_block(h, records, kTile * kRows);
    return t;
}

std::string counted(std::size_t n, const std::string& noun)
{
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// A warp's access to the tile, and how many rows and columns of `in` its
// active lanes' elements lie in. Each element is found by its value (the
// traced input's distinct values; a value seen twice names no element).
struct TileAccess {
    const trace::WarpEvent* event = nullptr;
    std::size_t rows = 0, columns = 0;
    std::string at(const Harness& h) const { return "step " + std::to_string(event->step) + ", " + h.site(event->site); }
};

// The first shared store (`stores`) or load of block 0 whose elements make `wrong(rows, columns)` true.
std::optional<TileAccess> first_tile_access(const TracedBlock& t, bool stores,
                                            const std::function<bool(std::size_t, std::size_t)>& wrong)
{
    std::map<std::uint32_t, std::size_t> index_of;
    std::set<std::uint32_t> twice;
    for (std::size_t i = 0; i < t.input.in.size(); ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, &t.input.in[i], 4);
        if (!index_of.emplace(bits, i).second) twice.insert(bits);
    }
    for (const trace::WarpEvent& e : t.view.block.events) {
        if (e.space != trace::Space::Shared || (stores ? !trace::writes_memory(e.kind) : e.kind != trace::Kind::Load))
            continue;
        std::set<std::size_t> columns, rows;
        for (unsigned lane = 0; lane < t.view.block.warp_size; ++lane) {
            const auto bits = static_cast<std::uint32_t>(e.value[lane][0]);
            if (!(e.mask >> lane & 1u) || twice.count(bits) || !index_of.count(bits)) continue;
            columns.insert(index_of[bits] % t.input.cols);
            rows.insert(index_of[bits] / t.input.cols);
        }
        if (wrong(rows.size(), columns.size())) return TileAccess{&e, rows.size(), columns.size()};
    }
    return std::nullopt;
}

// The tile is filled from rows of `in`: no warp's store into it holds a
// column of `in` (lanes on distinct rows, one column). A warp that stores one
// has loaded that column, its lanes a row of `in` apart: its global loads did
// the transposing, and the tile, written and read alike, transposes nothing;
// it has no column to conflict in, padded or not.
Finding tile_written_by_rows(const Harness& h, const TracedBlock& t)
{
    const auto a = first_tile_access(t, true, [](std::size_t rows, std::size_t columns) { return rows > 1 && columns == 1; });
    if (!a) return std::nullopt;
    return fail("step " + std::to_string(a->event->step) + ": a shared store by warp " + std::to_string(a->event->warp) +
                    " holds elements of " + counted(a->rows, "row") +
                    " and one column of in: the global loads did the transposing, so the tile transposes nothing",
                "each warp stores a row of in into the tile and reads a column of the tile, which it stores as a row of "
                "out: there the padding matters",
                a->at(h),
                "load rows of in (threadIdx.x along in's rows) into tile[ty + j][tx], then write out from "
                "tile[tx][ty + j] with the block indices swapped: the tile, not the loads, does the transposing");
}

// Where the tile does the transposing: a warp's read of it gathers a column
// of `in` (one column, however many rows), which the warp then stores as a
// row of `out`. A tile read by rows transposes nothing, and has no column to
// conflict in, padded or not.
Finding tile_read_by_columns(const Harness& h, const TracedBlock& t)
{
    const auto a = first_tile_access(t, false, [](std::size_t, std::size_t columns) { return columns > 1; });
    if (!a) return std::nullopt;
    return fail("step " + std::to_string(a->event->step) + ": a shared load by warp " + std::to_string(a->event->warp) +
                    " gathers elements of " + counted(a->rows, "row") + " and " + counted(a->columns, "column") +
                    " of in: the tile is read by rows, so it transposes nothing",
                "each warp reads a column of the tile, which it stores as a row of out: there the padding matters",
                a->at(h),
                "store tile[ty + j][tx] from in, then write out from tile[tx][ty + j] with the block indices swapped; "
                "padding a tile that is read by rows proves nothing");
}

unsigned count_events(const BlockView& v, trace::Space space, std::initializer_list<trace::Kind> kinds)
{
    unsigned n = 0;
    for (const trace::WarpEvent& e : v.block.events)
        n += e.space == space && std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end();
    return n;
}

// The shape both properties rest on: block 0 moves its 32 x 32 = 1024
// elements through the shared tile once each: 1024 global loads, 1024
// shared stores to 1024 distinct words, 1024 shared loads, 1024 global
// stores. A transpose that skips the tile (or touches it for show) has
// nothing to coalesce through and no bank to conflict in.
Finding through_the_tile(const BlockView& v)
{
    constexpr unsigned kElements = kTile * kTile;
    auto lanes = [&](const std::function<bool(const trace::WarpEvent&)>& which) {
        unsigned long long n = 0;
        for (unsigned c : per_thread(v, which)) n += c;
        return n;
    };
    const auto shared_load = [](const trace::WarpEvent& e) {
        return e.space == trace::Space::Shared && e.kind == trace::Kind::Load;
    };
    const auto global_store = [](const trace::WarpEvent& e) {
        return e.space == trace::Space::Global && e.kind == trace::Kind::Store;
    };
    const unsigned long long loads = lanes(is_global_load), stores_in = lanes(is_shared_write),
                             loads_out = lanes(shared_load), stores = lanes(global_store);
    const std::size_t tile_words = distinct_words(v, is_shared_write);
    if (loads == kElements && stores_in == kElements && tile_words == kElements && loads_out == kElements &&
        stores == kElements)
        return std::nullopt;
    return fail("block 0: " + std::to_string(loads) + " global loads, " + std::to_string(stores_in) +
                    " shared stores to " + std::to_string(tile_words) + " words, " + std::to_string(loads_out) +
                    " shared loads, " + std::to_string(stores) + " global stores",
                "each of its 1024 elements once through each: read from in, stored in the tile, read from the tile, "
                "written to out",
                "block 0 (64x64)",
                "load the tile in row order into shared memory, __syncthreads(), then write it out from the tile's "
                "columns: the shared tile does the transposing");
}

// Both sides coalesced, as the lab step teaches: a warp's loads along a row
// of in, its stores along a row of out. A kernel that reads columns of in
// (lanes cols * 4 bytes apart) and writes out by rows has moved the strided
// access from the stores to the loads, not removed it.
Verdict coalesced_stores(const Harness& h)
{
    const BlockView v = traced_block(h).view;
    if (Finding f = first_uncoalesced(h, v, trace::Kind::Store)) return *f;
    if (Finding f = through_the_tile(v)) return *f;
    if (Finding f = first_uncoalesced(h, v, trace::Kind::Load)) {
        f->hint = "let threadIdx.x run along in's rows when loading too: tile[ty + j][tx] = in[(by*TILE + ty + j) * "
                  "cols + bx*TILE + tx]; the shared tile, not the global loads, does the transposing";
        return *f;
    }
    return pass("all " + std::to_string(count_events(v, trace::Space::Global, {trace::Kind::Load})) + " global loads and " +
                std::to_string(count_events(v, trace::Space::Global, {trace::Kind::Store})) +
                " global stores of block 0 at the ideal sectors per request, every element through the tile once "
                "(64x64)");
}

// Why a column read of the tile conflicts, from the trace: its lanes (one a
// row) read words `pitch` apart, the tile's row length TILE + pad, so rows r
// and r + 32/g share a bank, g = gcd(pitch, 32): g-way (pitch_explanation).
// An even pad keeps the pitch even (g >= 2); an odd one makes g = 1. Empty
// when the lanes are not evenly spaced (a swizzle, say) or g = 1: then the
// catalog's hint.
std::string pitch_hint(const trace::WarpEvent& e)
{
    const std::optional<StridedAccess> a = strided_access(e);
    if (!a) return {};
    std::string row = "TILE, no pad";
    if (a->pitch != kTile)
        row = a->pitch > kTile ? "TILE + " + std::to_string(a->pitch - kTile) : std::to_string(a->pitch) + " words";
    const std::string why =
        pitch_explanation(e, {.lane = "row", .index = "r", .word = "c", .pitch_is = "the tile's row length, " + row});
    if (why.empty()) return {};
    return why + ". A row length that shares a factor with the 32 banks (an even pad does: TILE is even) always "
                 "stacks rows on a bank; an odd one does not: with TILE + 1 columns the bank is " +
           bank_formula(kTile + 1, "r", "c") + ", one bank a row";
}

Verdict no_bank_conflicts(const Harness& h)
{
    const TracedBlock t = traced_block(h);
    const BlockView& v = t.view;
    const unsigned shared = count_events(v, trace::Space::Shared, {trace::Kind::Load, trace::Kind::Store});
    if (shared == 0)
        return fail("block 0 made no shared-memory access", "the transpose goes through a shared tile");
    if (Finding f = through_the_tile(v)) return *f;
    if (Finding f = tile_written_by_rows(h, t)) return *f;
    if (Finding f = tile_read_by_columns(h, t)) return *f;
    if (Finding f = first_bank_conflict(h, v)) {
        f->hint = pitch_hint(*first_conflicted(v));
        return *f;
    }
    return pass("all " + std::to_string(shared) + " shared accesses of block 0 conflict-free, the tile read by its "
                "columns (64x64)");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    h.check("coalesced_stores", [&] { return coalesced_stores(h); });
    h.check("no_bank_conflicts", [&] { return no_bank_conflicts(h); });
}

}  // namespace wl::grade::e7
