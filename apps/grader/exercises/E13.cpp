// E13 checks: a kernel's memory-only and compute-only variants
// (exercises/E13_bottleneck_variants). Run by the grader's child process on
// the PTX of the student's kernel.cuh. The variants are graded on their
// traces: the global accesses the emulator recorded and the warp
// instructions it counted by class (warplab/trace/mix.h), so what the
// compiler removed, or moved where it never runs, is missing from them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "harness/harness.h"
#include "warplab/trace/mix.h"

namespace wl::grade::e13 {

// What blend does a thread, by hand (exercises/E13_bottleneck_variants/kernel.cuh):
// loads x[i] and y[i], one multiply (h = y/2) and kSteps = 64 FMAs, one store of out[i].
constexpr unsigned kBlendArithmetic = 1 + 64;
// A memory-only variant may keep a few operations to join its loads (x + y
// is one): at most an eighth of blend's.
constexpr unsigned kMemoryOnlyArithmetic = kBlendArithmetic / 8;
// The value the compute-only variant's store waits for: blend's results are sums of non-negative terms.
constexpr float kNever = -1.0f;

constexpr unsigned kThreads = 128;

struct BlendInput {
    std::string name;
    std::vector<float> x, y;
    bool main = false;  // a main case (harness.h's Case::main)
};

// A sentinel out[] starts with: a NaN no kernel computes from these inputs.
std::vector<float> sentinel(std::size_t n) { return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()); }

struct Outputs {
    std::vector<float> memory_only, compute_only;
    std::uint64_t compute_only_lane_instructions = 0;  // what the compute-only launch ran, its whole grid
};

// Both variants on one input, each on a fresh out[] holding the sentinel;
// `records`: block 0 of each (memory-only's first, then compute-only's).
Outputs run_variants(const Harness& h, const BlendInput& in, std::uint64_t lane_seed,
                     std::vector<trace::LaneRecord>* memory_records = nullptr,
                     std::vector<trace::LaneRecord>* compute_records = nullptr)
{
    const auto n = static_cast<unsigned>(in.x.size());
    const dim3 grid((n + kThreads - 1) / kThreads);
    Outputs o;
    {
        emu::Emulator emu;
        configure(emu, emu::Schedule::Independent, lane_seed, memory_records != nullptr);
        const float* dx = to_device(emu, in.x);
        const float* dy = to_device(emu, in.y);
        float* out = to_device(emu, sentinel(n));
        launch(emu, h, "exercise::blend_memory_only", grid, dim3(kThreads), dx, dy, out, n);
        if (memory_records) *memory_records = emu.take_records();
        o.memory_only = to_host(emu, out, n);
    }
    {
        emu::Emulator emu;
        configure(emu, emu::Schedule::Independent, lane_seed, compute_records != nullptr);
        const float* dx = to_device(emu, in.x);
        const float* dy = to_device(emu, in.y);
        float* out = to_device(emu, sentinel(n));
        const std::uint64_t before = emu::lane_instructions_run();
        launch(emu, h, "exercise::blend_compute_only", grid, dim3(kThreads), dx, dy, out, n, kNever);
        o.compute_only_lane_instructions = emu::lane_instructions_run() - before;
        if (compute_records) *compute_records = emu.take_records();
        o.compute_only = to_host(emu, out, n);
    }
    return o;
}

bool written(float v) { return !std::isnan(v); }

// Right: the memory-only variant stores every out[i] (its store is blend's),
// the compute-only one none (its condition is false at run time).
Finding check_outputs(const Outputs& o)
{
    const auto unwritten = std::find_if_not(o.memory_only.begin(), o.memory_only.end(), written);
    if (unwritten != o.memory_only.end()) {
        const auto i = std::to_string(unwritten - o.memory_only.begin());
        return fail("blend_memory_only left out[" + i + "] unwritten", "every out[i] written, as blend writes it", {},
                    "keep blend's store out[i] = ..., and let it store a value made from both loads");
    }
    const auto stored = std::find_if(o.compute_only.begin(), o.compute_only.end(), written);
    if (stored != o.compute_only.end()) {
        const auto i = std::to_string(stored - o.compute_only.begin());
        return fail("blend_compute_only wrote out[" + i + "] = " + str(*stored) + " with never = -1",
                    "no element written: the store only under a condition false at run time", {},
                    "store only when the result equals never (the grader passes -1, which blend's results never are)");
    }
    return std::nullopt;
}

Finding run_case(const Harness& h, const BlendInput& in, std::uint64_t lane_seed) { return check_outputs(run_variants(h, in, lane_seed)); }

BlendInput seeded(std::string label, std::size_t n, std::uint64_t seed)
{
    return {label + ": n = " + std::to_string(n) + ", seed " + std::to_string(seed) + ", blocks of 128",
            random_floats(n, seed, 0, 1), random_floats(n, seed + 1000, 0, 1)};
}

std::vector<BlendInput> inputs(std::uint64_t seed0)
{
    // x[i] = i / 1000, y[i] = 1 - i / 1000: every value in blend's range [0, 1).
    BlendInput pattern{"pattern: n = 1000, x[i] = i / 1000, y[i] = 1 - i / 1000, blocks of 128", std::vector<float>(1000),
                       std::vector<float>(1000)};
    for (unsigned i = 0; i < 1000; ++i) pattern.x[i] = float(i) / 1000, pattern.y[i] = 1 - float(i) / 1000;
    std::vector<BlendInput> v{pattern, main_case(seeded("seeded random", 4096, seed0))};
    std::uint64_t seed = seed0 + 1;
    for (std::size_t n : {1u, 31u, 33u, 257u}) v.push_back(seeded("odd size", n, seed++));
    return v;
}

Verdict correct(const Harness& h)
{
    const auto run = [&](const BlendInput& in, std::uint64_t lane_seed) { return run_case(h, in, lane_seed); };
    return run_cases(cases_of(inputs(h.seed()), run),
                     "blend_memory_only writes every out[i]; blend_compute_only writes none");
}

constexpr unsigned kTracedN = 4096;

// Block 0 of both variants at n = 4096 (32 blocks of 128), traced, and the
// lane-instructions of the compute-only launch's whole grid.
struct Traced {
    BlockView memory_only, compute_only;
    std::uint64_t compute_only_lane_instructions = 0;
};
Traced traced(const Harness& h)
{
    std::vector<trace::LaneRecord> memory_records, compute_records;
    const BlendInput in = seeded("traced", kTracedN, h.seed() + 100);
    const Outputs o = run_variants(h, in, 1, &memory_records, &compute_records);
    require_right(check_outputs(o), "n = 4096");
    return {view_block(h, memory_records, kThreads), view_block(h, compute_records, kThreads),
            o.compute_only_lane_instructions};
}

bool is_global_store(const trace::WarpEvent& e) { return e.space == trace::Space::Global && trace::writes_memory(e.kind); }

// The floating-point warp instructions of each warp of block 0 (FP32, FP64, FP16 and the
// special-function unit's; 0 for a warp that ran none).
std::vector<std::uint64_t> arithmetic_of_each_warp(const BlockView& v)
{
    std::vector<std::uint64_t> fp(kThreads / graded_warp_width(), 0);
    using C = trace::InstructionClass;
    for (const trace::MixCount& m : v.block.mix)
        if (m.warp < fp.size() && (m.cls == C::Fp32 || m.cls == C::Fp64 || m.cls == C::Fp16 || m.cls == C::Special))
            fp[m.warp] += m.count;
    return fp;
}

// Their average over block 0's warps.
double arithmetic_per_warp(const BlockView& v)
{
    const std::vector<std::uint64_t> each = arithmetic_of_each_warp(v);
    return double(std::accumulate(each.begin(), each.end(), std::uint64_t{0})) / double(each.size());
}

std::string per_warp_text(double v) { return "floating-point warp instructions a warp: " + str(std::round(v * 10) / 10); }

// Every thread of block 0 loads 4 bytes of x and 4 of y (two distinct words,
// 256 for the block) and stores 4; at most an eighth of blend's arithmetic.
Verdict memory_only_keeps_accesses(const Traced& t)
{
    const BlockView& v = t.memory_only;
    const std::vector<unsigned> loaded = per_thread_bytes(v, is_global_load), stored = per_thread_bytes(v, is_global_store);
    const auto [fewest, most] = std::minmax_element(loaded.begin(), loaded.end());
    if (*fewest != 8 || *most != 8 || distinct_words(v, is_global_load) != 2 * kThreads)
        return fail("the threads of block 0 loaded " + range_text(*fewest, *most) + " bytes each, " +
                        std::to_string(distinct_words(v, is_global_load)) + " distinct words in all",
                    "8 bytes a thread, x[i] and y[i]: 256 distinct words for 128 threads", "block 0 (n = 4096)",
                    "the compiler drops a load whose value no store needs: let both loaded values reach out[i]");
    const auto [least, largest] = std::minmax_element(stored.begin(), stored.end());
    if (*least != 4 || *largest != 4)
        return fail("the threads of block 0 stored " + range_text(*least, *largest) + " bytes each", "4 bytes a thread: out[i]",
                    "block 0 (n = 4096)");
    const double arithmetic = arithmetic_per_warp(v);
    if (arithmetic > kMemoryOnlyArithmetic)
        return fail("blend_memory_only's " + per_warp_text(arithmetic),
                    "at most " + std::to_string(kMemoryOnlyArithmetic) + ", an eighth of blend's " +
                        std::to_string(kBlendArithmetic) + " (its multiply and 64 FMAs)",
                    "block 0 (n = 4096)", "comment out the computation: join the two loaded words without blend's loop");
    return pass("every thread loads x[i] and y[i] and stores out[i], as blend does; " + per_warp_text(arithmetic));
}

// No global access at run time in block 0, and at least blend's arithmetic run.
Verdict compute_only_keeps_arithmetic(const Traced& t)
{
    const BlockView& v = t.compute_only;
    const trace::Totals totals = trace::totals(v.steps);
    if (totals.global_load.requests + totals.global_store.requests > 0)
        return fail("blend_compute_only made " + std::to_string(totals.global_load.requests) + " global load and " +
                        std::to_string(totals.global_store.requests) + " global store requests in block 0",
                    "none: no data movement at run time", "block 0 (n = 4096)",
                    "make a and h from the index instead of loading them; store only under the false condition");
    const double arithmetic = arithmetic_per_warp(v);
    if (arithmetic < kBlendArithmetic)
        return fail("blend_compute_only's " + per_warp_text(arithmetic),
                    "at least blend's " + std::to_string(kBlendArithmetic) + " (its multiply and 64 FMAs)", "block 0 (n = 4096)",
                    "the compiler removes a computation whose result no store needs, and moves one into a branch "
                    "whose condition does not read it: store under a condition on the result itself, r == never");
    // Every warp, not their average: a variant whose warp 0 loops 4 times as
    // long while the others return runs a quarter of the parallelism blend has.
    const std::vector<std::uint64_t> each = arithmetic_of_each_warp(v);
    const auto fewest = std::min_element(each.begin(), each.end());
    if (*fewest < kBlendArithmetic)
        return fail("warp " + std::to_string(fewest - each.begin()) + " of block 0 ran " + std::to_string(*fewest) +
                        " floating-point warp instructions (" + per_warp_text(arithmetic) + " on average)",
                    "every warp at least blend's " + std::to_string(kBlendArithmetic) + ": each thread runs blend's "
                    "arithmetic once",
                    "block 0 (n = 4096)",
                    "let every thread of every warp run blend's loop on its own a and h, made from its index i, as "
                    "blend's threads do; a thread that returns early leaves its share of the work undone");
    // Every thread, not every warp: a warp instruction counts once however
    // many of its lanes run it, so a loop run by lane 0 alone counts as the
    // whole warp's. The emulator's lane-instructions (one per lane an
    // instruction runs for, of any class) count each thread's: a thread that
    // runs blend's multiply and 64 FMAs runs at least 65 of them.
    const std::uint64_t threads = kTracedN, lanes = t.compute_only_lane_instructions;
    if (lanes < threads * kBlendArithmetic)
        return fail("the grid's " + std::to_string(threads) + " threads ran " + std::to_string(lanes) +
                        " lane-instructions in all, " + str(std::round(double(lanes) / threads * 10) / 10) +
                        " a thread: some threads skip the arithmetic",
                    "at least " + std::to_string(kBlendArithmetic) + " a thread (blend's multiply and 64 FMAs, each "
                    "run by every thread; a warp instruction counts once however many lanes run it)",
                    "n = 4096, all 32 blocks",
                    "let every thread run blend's loop on its own a and h, made from its index i: a loop run by one "
                    "lane of a warp (or one block of the grid) does 1/32 of the work, however many warp instructions "
                    "it issues");
    return pass("no global access; " + per_warp_text(arithmetic) + " (blend's " + std::to_string(kBlendArithmetic) +
                "), every warp at least " + std::to_string(*fewest) + "; " +
                str(std::round(double(lanes) / threads * 10) / 10) + " lane-instructions a thread");
}

void grade(Harness& h)
{
    h.check(kCorrect, [&] { return correct(h); });
    std::optional<Traced> t;
    const auto get = [&]() -> const Traced& {
        if (!t) t = traced(h);
        return *t;
    };
    h.check("memory_only", [&] { return memory_only_keeps_accesses(get()); });
    h.check("compute_only", [&] { return compute_only_keeps_arithmetic(get()); });
}

}  // namespace wl::grade::e13
