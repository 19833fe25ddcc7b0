// E9 checks: a sum fed by the copy engine (exercises/E9_sum_bulk_copy).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
// The emulator runs the bulk copies and mbarriers: a read of a slot before
// its copy has landed, a refill that races with reads, or a wait that can
// never end is a fault, and fails `correct` with the emulator's report.
#include <algorithm>

#include "harness/harness.h"

namespace wl::grade::e9 {

constexpr unsigned kPieceInts = 1024;  // the skeleton's

struct RingInput {
    std::string name;
    std::vector<int> in;  // pieces * kPieceInts ints
    unsigned blocks = 2, threads = 256;
    std::string hint = {};
    bool main = false;  // a main case (harness.h's Case::main)
    unsigned pieces() const { return static_cast<unsigned>(in.size() / kPieceInts); }
};

// Block b's sum: its pieces b, b + blocks, ... (wrap-around int addition, as the kernel's).
std::vector<int> expected_sums(const RingInput& in)
{
    std::vector<int> sums(in.blocks, 0);
    for (unsigned p = 0; p < in.pieces(); ++p) {
        unsigned acc = 0;
        for (unsigned j = 0; j < kPieceInts; ++j) acc += static_cast<unsigned>(in.in[std::size_t(p) * kPieceInts + j]);
        sums[p % in.blocks] = static_cast<int>(static_cast<unsigned>(sums[p % in.blocks]) + acc);
    }
    return sums;
}

Finding run_ring(const Harness& h, const RingInput& in, std::uint64_t lane_seed, std::vector<trace::LaneRecord>* records)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const int* d_in = to_device(emu, in.in);
    int* d_out = to_device(emu, std::vector<int>(in.blocks, -7777777));
    launch(emu, h, "exercise::ring_sum<" + std::to_string(in.threads) + "u>", dim3(in.blocks), dim3(in.threads), d_in,
           d_out, in.pieces());
    if (records) *records = emu.take_records();
    const std::vector<int> got = to_host(emu, d_out, in.blocks), want = expected_sums(in);
    for (unsigned b = 0; b < in.blocks; ++b)
        if (got[b] != want[b])
            return fail("your kernel's block " + std::to_string(b) + " of " + std::to_string(in.blocks) + " wrote " +
                            (got[b] == -7777777 ? std::string("nothing") : std::to_string(got[b])) +
                            "; the right sum is " + std::to_string(want[b]),
                        std::to_string(want[b]) + ", the sum of its pieces " + std::to_string(b) + ", " +
                            std::to_string(b + in.blocks) + ", ... of " + std::to_string(in.pieces()),
                        {}, in.hint);
    return std::nullopt;
}

RingInput seeded(std::string label, unsigned pieces, unsigned blocks, std::uint64_t seed, unsigned threads = 256,
                 std::string hint = {})
{
    return {label + ": " + std::to_string(pieces) + " pieces, " + std::to_string(blocks) + " blocks of " +
                std::to_string(threads) + ", seed " + std::to_string(seed),
            random_ints(std::size_t(pieces) * kPieceInts, seed, -1000, 1000), blocks, threads, std::move(hint)};
}

// The published pattern, then inputs from this run's seed.
std::vector<RingInput> inputs(std::uint64_t seed0)
{
    // Every element of piece p is p + 1, so piece p adds up to 1024 (p + 1).
    // 5 pieces on 2 blocks: block 0 takes pieces 0, 2, 4 (its slot 0 filled
    // twice): 1024 (1 + 3 + 5) = 9216; block 1 takes 1, 3: 1024 (2 + 4) = 6144.
    RingInput pattern{"pattern: piece p all p + 1, 5 pieces, 2 blocks of 256", std::vector<int>(5 * kPieceInts)};
    for (std::size_t i = 0; i < pattern.in.size(); ++i) pattern.in[i] = static_cast<int>(i / kPieceInts + 1);
    const std::string refill_hint = "a slot's second fill is its phase 1: wait with parity (k / kSlots) % 2, and "
                                    "refill only after a __syncthreads() that follows every thread's reads";
    std::vector<RingInput> v{pattern};
    std::uint64_t seed = seed0;
    v.push_back(main_case(seeded("seeded random", 37, 4, seed++, 256, refill_hint)));  // block 0: 10 pieces, 5 fills a slot
    v.push_back(seeded("one piece", 1, 1, seed++));
    v.push_back(seeded("blocks with no piece", 3, 4, seed++, 256, "a block with no piece must still write 0"));
    v.push_back(seeded("a piece a block", 8, 8, seed++));
    v.push_back(seeded("block of 128", 9, 2, seed++, 128, "thread t takes elements t, t + BLOCK, ...: use BLOCK"));
    return v;
}

Verdict correct(const Harness& h)
{
    const auto run = [&](const RingInput& in, std::uint64_t lane_seed) { return run_ring(h, in, lane_seed, nullptr); };
    return run_cases(cases_of(inputs(h.seed()), run), "right sums");
}

// 12 pieces on 2 blocks of 256: block 0 adds pieces 0, 2, ..., 10, six of
// them (each slot filled three times). All its data comes through the ring:
// its warps load nothing from global memory, and each thread reads its share
// of the six pieces from ring, 6 x 1024 ints / 256 threads = 24 ints (96
// bytes), however vectorised. One thread adding everything reads 24 KB.
Verdict copy_engine(const Harness& h)
{
    std::vector<trace::LaneRecord> records;
    require_right(run_ring(h, seeded("traced", 12, 2, h.seed() + 100), 1, &records), "12 pieces, 2 blocks");
    const BlockView v = view_block(h, records, 256);
    const trace::Totals t = trace::totals(v.steps);
    const std::string where = "block 0 (12 pieces, 2 blocks of 256: 6 pieces of its own)";
    if (t.global_load.requests != 0)
        return fail("block 0's warps made " + std::to_string(t.global_load.requests) + " global load requests (" +
                        std::to_string(t.global_load.sectors) + " sectors)",
                    "none: the copy engine brings every piece into the ring", where);
    const auto ring = std::find_if(v.block.shared_arrays.begin(), v.block.shared_arrays.end(),
                                   [](const trace::SharedArrayInfo& a) { return a.name == "ring"; });
    if (ring == v.block.shared_arrays.end())
        return fail("no shared array named ring in block 0's trace", "the skeleton's ring[kSlots][kPieceInts]", where);
    const std::vector<unsigned> bytes = per_thread_bytes(v, [&](const trace::WarpEvent& e) {
        return e.space == trace::Space::Shared && e.kind == trace::Kind::Load && e.array == ring->id;
    });
    const auto [fewest, most] = std::minmax_element(bytes.begin(), bytes.end());
    constexpr unsigned kShare = 6 * kPieceInts * 4 / 256;
    if (*fewest != kShare || *most != kShare)
        return fail("the threads of block 0 read " + range_text(*fewest, *most) + " bytes of ring each",
                    std::to_string(kShare) + " each: every element of the 6 pieces once, 24 ints a thread", where);
    return pass("block 0 loaded no global memory and read its 6 pieces from the ring, " + std::to_string(kShare) +
                " bytes a thread");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    h.check("copy_engine", [&] { return copy_engine(h); });
}

}  // namespace wl::grade::e9
