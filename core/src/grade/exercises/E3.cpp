// E3 checks: dot product with the first add during the load (exercises/E3_dot_first_add_during_load).
// Compiled by the grader into a harness, after the student's kernel.cuh.
#include "harness/block_reduce.h"

namespace wl::grade::e3 {

struct DotInput {
    std::string name;
    std::vector<int> a, b;
    unsigned block;
    std::string hint;
};

// int: the exact 32-bit two's-complement sum, what the GPU computes in any order.
int reference(const std::vector<int>& a, const std::vector<int>& b)
{
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += static_cast<std::uint32_t>(a[i] * b[i]);
    return static_cast<int>(sum);
}

unsigned student_blocks(unsigned n, unsigned block)
{
    unsigned blocks = 0;
    with_block(block, [&]<unsigned B>() { blocks = exercise::dot_blocks<B>(n); });
    return blocks;
}

Finding run_dot(const DotInput& in, std::uint64_t lane_seed)
{
    const auto n = static_cast<unsigned>(in.a.size());
    const unsigned blocks = student_blocks(n, in.block);
    if (blocks == 0 || blocks > 65535)
        return fail("dot_blocks<" + std::to_string(in.block) + ">(" + std::to_string(n) + ") returned " +
                        std::to_string(blocks),
                    "a grid of 1 to 65535 blocks");
    emu::Emulator emu;
    configure(emu, emu::Schedule::Independent, lane_seed, false);
    const int* da = to_device(emu, in.a);
    const int* db = to_device(emu, in.b);
    int* partial = emu.alloc<int>(blocks);
    with_block(in.block, [&]<unsigned B>() {
        emu.launch("dot_partial", &exercise::dot_partial<B>, dim3(blocks), dim3(B), da, db, partial, n);
    });
    std::uint32_t sum = 0;
    for (int p : to_host(emu, partial, blocks)) sum += static_cast<std::uint32_t>(p);
    const int got = static_cast<int>(sum), expected = reference(in.a, in.b);
    if (got == expected) return std::nullopt;
    return fail("the dot product is " + std::to_string(got) + " (the sum of the " + std::to_string(blocks) +
                    " blocks' partials)",
                std::to_string(expected));
}

DotInput seeded(std::string name, std::size_t n, std::uint64_t seed, unsigned block, std::string hint = {})
{
    return {std::move(name), random_ints(n, seed, -100, 100), random_ints(n, seed + 1000, -100, 100), block,
            std::move(hint)};
}

const std::vector<DotInput>& inputs()
{
    static const std::vector<DotInput> all = [] {
        // a = 1 everywhere, b = the tent: the dot product is the tent's sum, 9398 (harness/block_reduce.h).
        std::vector<DotInput> v{{"pattern: n = 1000, a[i] = 1, b[i] = 300 - |i - 701|, dot 9398",
                                 std::vector<int>(1000, 1), tent_pattern(), 256, {}},
                                seeded("seeded random: n = 4096, seed 1", 4096, 1, 256)};
        std::uint64_t seed = 2;
        for (std::size_t n : {1u, 31u, 33u, 257u, 511u}) {
            v.push_back(seeded("odd size: n = " + std::to_string(n) + ", seed " + std::to_string(seed), n, seed, 256));
            ++seed;
        }
        v.push_back(seeded("many blocks: n = 65539 (2^16 + 3), block 128, seed 7", 65539, 7, 128));
        v.push_back(seeded("n = 512 = 2 * BLOCK: one full block, seed 8", 512, 8, 256));
        v.push_back(seeded("n = 513 = 2 * BLOCK + 1: one element in a second block, seed 9", 513, 9, 256,
                           "dot_blocks must round up (ceil(n / (2*BLOCK))), and both loads need their own < n test"));
        return v;
    }();
    return all;
}

Verdict correct()
{
    if (reference(inputs()[0].a, inputs()[0].b) != 9398)
        throw std::logic_error("grader bug: the pattern's dot product derived by hand disagrees with the reference");
    return run_cases(cases_of(inputs(), run_dot), "right dot product");
}

// The launch of every case against ceil(n / (2*BLOCK)), half the naive ceil(n / BLOCK) (rounded up).
Verdict half_the_blocks()
{
    for (const DotInput& in : inputs()) {
        const auto n = static_cast<unsigned>(in.a.size());
        const unsigned naive = (n + in.block - 1) / in.block, limit = (n + 2 * in.block - 1) / (2 * in.block);
        const unsigned blocks = student_blocks(n, in.block);
        if (blocks <= limit) continue;
        return fail("n = " + std::to_string(n) + ", block " + std::to_string(in.block) + ": dot_blocks gives " +
                        std::to_string(blocks) + " blocks (the naive launch: " + std::to_string(naive) + ")",
                    "at most ceil(n / (2*BLOCK)) = " + std::to_string(limit));
    }
    return pass("dot_blocks gives at most ceil(n / (2*BLOCK)) blocks for all " + std::to_string(inputs().size()) +
                " sizes");
}

void grade(Harness& h)
{
    h.check(kCorrect, [] { return correct(); });
    h.check("half_the_blocks", [] { return half_the_blocks(); });
}

}  // namespace wl::grade::e3
