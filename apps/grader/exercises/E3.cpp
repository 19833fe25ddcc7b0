// E3 checks: dot product with the first add during the load (exercises/E3_dot_first_add_during_load).
// Run by the grader's child process on the PTX of the student's kernel.cuh.
#include "harness/block_reduce.h"

namespace wl::grade::e3 {

struct DotInput {
    std::string name;
    std::vector<int> a, b;
    unsigned block;
    std::string hint;
    bool main = false;  // a main case (harness.h's Case::main)
};

// int: the exact 32-bit two's-complement sum, what the GPU computes in any order.
int reference(const std::vector<int>& a, const std::vector<int>& b)
{
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += static_cast<std::uint32_t>(a[i] * b[i]);
    return static_cast<int>(sum);
}

// The student's dot_blocks<BLOCK>(n), run on the emulator (the generated
// grader_dot_blocks_<BLOCK> kernel calls it).
unsigned student_blocks(const Harness& h, unsigned n, unsigned block)
{
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, 1, false);
    unsigned* d = emu.alloc<unsigned>(1);
    launch(emu, h, "grader_dot_blocks_" + std::to_string(block), dim3(1), dim3(1), n, d);
    return to_host(emu, d, 1)[0];
}

Finding run_dot(const Harness& h, const DotInput& in, std::uint64_t lane_seed,
                std::vector<trace::LaneRecord>* records = nullptr)
{
    const auto n = static_cast<unsigned>(in.a.size());
    const unsigned blocks = student_blocks(h, n, in.block);
    if (blocks == 0 || blocks > 65535)
        return fail("dot_blocks<" + std::to_string(in.block) + ">(" + std::to_string(n) + ") returned " +
                        std::to_string(blocks),
                    "a grid of 1 to 65535 blocks");
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, records != nullptr);
    const int* da = to_device(emu, in.a);
    const int* db = to_device(emu, in.b);
    int* partial = emu.alloc<int>(blocks);
    launch(emu, h, "exercise::dot_partial<" + std::to_string(in.block) + "u>", dim3(blocks), dim3(in.block), da, db,
           partial, n);
    if (records) *records = emu.take_records();
    std::uint32_t sum = 0;
    for (int p : to_host(emu, partial, blocks)) sum += static_cast<std::uint32_t>(p);
    const int got = static_cast<int>(sum), expected = reference(in.a, in.b);
    if (got == expected) return std::nullopt;
    return fail("your kernel's dot product was " + std::to_string(got) + " (the sum of the " + std::to_string(blocks) +
                    " blocks' partials); the right dot product is " + std::to_string(expected),
                "the dot product " + std::to_string(expected));
}

DotInput seeded(std::string name, std::size_t n, std::uint64_t seed, unsigned block, std::string hint = {})
{
    return {std::move(name), random_ints(n, seed, -100, 100), random_ints(n, seed + 1000, -100, 100), block,
            std::move(hint)};
}

// The published pattern, then inputs from this run's seed.
std::vector<DotInput> inputs(std::uint64_t seed0)
{
    // a = 1 everywhere, b = the tent: the dot product is the tent's sum, 9398 (harness/block_reduce.h).
    std::vector<DotInput> v{{"pattern: n = 1000, a[i] = 1, b[i] = 300 - |i - 701| (their dot product is 9398)",
                             std::vector<int>(1000, 1), tent_pattern(), 256, {}},
                            main_case(seeded("seeded random: n = 4096, seed " + std::to_string(seed0), 4096, seed0, 256))};
    std::uint64_t seed = seed0 + 1;
    for (std::size_t n : {1u, 31u, 33u, 257u, 511u}) {
        v.push_back(seeded("odd size: n = " + std::to_string(n) + ", seed " + std::to_string(seed), n, seed, 256));
        ++seed;
    }
    auto named = [&](const std::string& what) { return what + ", seed " + std::to_string(seed); };
    v.push_back(seeded(named("many blocks: n = 65539 (2^16 + 3), block 128"), 65539, seed, 128));
    ++seed;
    v.push_back(seeded(named("n = 512 = 2 * BLOCK: one full block"), 512, seed, 256));
    ++seed;
    v.push_back(seeded(named("n = 513 = 2 * BLOCK + 1: one element in a second block"), 513, seed, 256,
                       "dot_blocks must round up (ceil(n / (2*BLOCK))), and both loads need their own < n test"));
    return v;
}

Verdict correct(const Harness& h)
{
    const std::vector<DotInput> all = inputs(h.seed());
    if (reference(all[0].a, all[0].b) != 9398)
        throw std::logic_error("grader bug: the pattern's dot product derived by hand disagrees with the reference");
    return run_cases(cases_of(all, [&](const DotInput& in, std::uint64_t lane_seed) { return run_dot(h, in, lane_seed); }),
                     "right dot product");
}

// Block 0 of n = 4096 at block 256, traced: every thread loads a[i], a[i + BLOCK],
// b[i] and b[i + BLOCK], 16 bytes, and the block covers 2*BLOCK = 512 elements of
// each vector once: 4096 bytes. Counted in bytes, so that a thread loading its two
// as one int2 counts as two; more a thread (up to 8 of each, 64 bytes: Harris's
// later reductions) is doing more. One block looping over everything loads all
// 4096 of each, 128 bytes a thread; one product per thread, 8.
Finding two_per_thread(const Harness& h)
{
    constexpr unsigned kBlock = 256, kPairBytes = 2 * sizeof(int);  // an element of a and one of b
    std::vector<trace::LaneRecord> records;
    const DotInput in = seeded("traced", 4096, h.seed() + 100, kBlock);
    require_right(run_dot(h, in, 1, &records), "n = 4096, block 256");
    const BlockView v = view_block(h, records, kBlock);
    const std::vector<unsigned> loaded = per_thread_bytes(v, is_global_load);
    const std::size_t covered = distinct_bytes(v, is_global_load);
    const auto [fewest, most] = std::minmax_element(loaded.begin(), loaded.end());
    const bool even = *fewest == *most && *fewest % kPairBytes == 0;
    if (even && *fewest >= 2 * kPairBytes && *fewest <= 8 * kPairBytes && covered == std::size_t{kBlock} * *fewest)
        return std::nullopt;
    const auto elements = [&](std::size_t bytes) { return std::to_string(bytes / kPairBytes); };
    return fail("block 0 loaded " + elements(covered) + " elements of each vector; its threads loaded " +
                    (*fewest == *most ? elements(*fewest) : elements(*fewest) + " to " + elements(*most)) +
                    " of each (" + range_text(*fewest, *most) + " bytes)" +
                    (even && covered < std::size_t{kBlock} * *fewest ? ", some of them twice" : ""),
                "2*BLOCK = 512 elements of each vector, every thread loading 2 of a and 2 of b (or the same larger "
                "number, up to 8 of each), each element once",
                "block 0 (n = 4096, block 256)",
                "thread tid of block b loads the products at i = 2*BLOCK*b + tid and i + BLOCK, adds them, then the "
                "tree runs as before: one block doing everything is not the step this exercise teaches");
}

// The launch of every case against ceil(n / (2*BLOCK)), half the naive ceil(n / BLOCK)
// (rounded up); then the shape that earns it: two elements per thread.
Verdict half_the_blocks(const Harness& h)
{
    const std::vector<DotInput> all = inputs(h.seed());
    for (const DotInput& in : all) {
        const auto n = static_cast<unsigned>(in.a.size());
        const unsigned naive = (n + in.block - 1) / in.block, limit = (n + 2 * in.block - 1) / (2 * in.block);
        const unsigned blocks = student_blocks(h, n, in.block);
        if (blocks == 0)
            return fail("n = " + std::to_string(n) + ", block " + std::to_string(in.block) + ": dot_blocks gives 0 blocks",
                        "at least 1, and at most ceil(n / (2*BLOCK)) = " + std::to_string(limit),
                        "", "round up: (n + 2 * BLOCK - 1) / (2 * BLOCK)");
        if (blocks <= limit) continue;
        return fail("n = " + std::to_string(n) + ", block " + std::to_string(in.block) + ": dot_blocks gives " +
                        std::to_string(blocks) + " blocks (the naive launch: " + std::to_string(naive) + ")",
                    "at most ceil(n / (2*BLOCK)) = " + std::to_string(limit));
    }
    if (Finding f = two_per_thread(h)) return *f;
    return pass("dot_blocks gives at most ceil(n / (2*BLOCK)) blocks for all " + std::to_string(all.size()) +
                " sizes; block 0 covers 2*BLOCK elements, two per thread");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    h.check("half_the_blocks", [&] { return half_the_blocks(h); });
}

}  // namespace wl::grade::e3
