// The method lab on the emulator, through the registry: every version's output
// checked for odd sizes; its PTX counted by kind against counts derived by
// hand, so that each bottleneck variant is shown to keep what it must time
// (the loads, or the arithmetic) and to drop the rest; the occupancy guard;
// the math functions' errors in ulp; the verdict's rules.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "labs/common/lab.h"
#include "labs/common/make_lab.h"
#include "labs/method/problem.h"
#include "labs/method/run.h"
#include "labs/method/verdict.h"
#include "labs/reduction/problem.h"
#include "warplab/occupancy.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/analysis.h"

namespace warplab::method {
namespace {

const Lab& lab()
{
    const Lab* l = find_lab("method");
    if (!l) throw std::logic_error("the method lab is not registered");
    return *l;
}

RunRequest request(const std::string& version, std::size_t n, std::uint64_t seed = 1)
{
    RunRequest req;
    req.version = version;
    req.n = n;
    req.block = 256;
    req.type = "float";
    req.backend = BackendChoice::Cpu;
    req.seed = seed;
    return req;
}

// ---- results -----------------------------------------------------------------

// Odd n leaves the last warp part-full (n = 1000: three full blocks and 232
// threads of a fourth); every version checks every element (run.h).
TEST(MethodRun, EveryVersionRightForOddSizes)
{
    for (const Version& v : lab().versions)
        for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(1000)}) {
            const RunResult r = lab().run(request(v.id, n, 5 + n));
            EXPECT_TRUE(r.ok) << v.id << " n = " << n << ": " << r.check;
        }
}

// The compute-only variants write nothing: their stores wait for a result of
// -1 that the chain of non-negative numbers never gives. Their check is that
// out stays as it started (NaN).
TEST(MethodRun, ComputeOnlyVariantsWriteNothing)
{
    for (const char* id : {"v3", "v7"}) {
        const RunResult r = lab().run(request(id, 300));
        EXPECT_TRUE(r.ok) << id << ": " << r.check;
        EXPECT_EQ(r.value, 0.0) << id;
        EXPECT_NE(r.check.find("no element written"), std::string::npos) << r.check;
    }
}

// What version V must leave for the input of n elements, as the CPU computes it.
template <class V> std::vector<float> expected_output(const std::vector<float>& in, std::size_t n)
{
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = expected<V>(in, i, n);
    return out;
}

// A wrong output is caught, by the same check the runs use: one element of
// v1's output changed, one element of v3's written.
TEST(MethodRun, CheckCatchesAWrongElement)
{
    const std::size_t n = 40;
    const std::vector<float> in = make_input<V1>(n, 3);
    std::vector<float> out = expected_output<V1>(in, n);
    EXPECT_TRUE(check_output<V1>(in, out).ok);
    out[17] = std::nextafter(out[17], 10.0f);
    const Checked c = check_output<V1>(in, out);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.value, 17.0) << c.text;
    std::vector<float> untouched(n, std::numeric_limits<float>::quiet_NaN());
    EXPECT_TRUE(check_output<V3>(in, untouched).ok);
    untouched[3] = -1.0f;
    EXPECT_FALSE(check_output<V3>(in, untouched).ok);
}

TEST(MethodRun, BadInputRefused)
{
    RunRequest req = request("v1", 100);
    req.type = "int";
    EXPECT_THROW(lab().run(req), std::invalid_argument);
    req = request("v1", 100);
    req.block = 100;
    EXPECT_THROW(lab().run(req), std::invalid_argument);
    EXPECT_THROW(lab().run(request("v24", 100)), std::invalid_argument);
    EXPECT_THROW(lab().run(request("v5", std::size_t(1) << 30)), std::invalid_argument);  // 2n floats past 32-bit indices
    // One texel past what a 1D texture over linear memory holds (2^28), refused before any memory is taken.
    EXPECT_THROW(lab().run(request("v23", (std::size_t(1) << 28) + 1)), std::invalid_argument);
}

// ---- the PTX, counted by kind ------------------------------------------------

// The body of the entry method_<name><float> in `ptx` (the lab's, by default).
std::string entry_body(const std::string& name, const std::string& ptx = kPtx)
{
    const std::string mangled = std::to_string(std::string("method_").size() + name.size()) + "method_" + name + "IfEE";
    const std::size_t at = ptx.find(".entry _ZN7warplab6method" + mangled);
    if (at == std::string::npos) throw std::logic_error("no entry method_" + name + " in the lab's PTX");
    const std::size_t end = ptx.find("\n}\n", at);
    return ptx.substr(at, end - at);
}

// Instructions whose opcode (predicate dropped) starts with one of the
// prefixes: "ld.global" counts ld.global.nc.f32 and ld.global.f32.
std::map<std::string, int> count_by_kind(const std::string& body, const std::vector<std::string>& kinds)
{
    std::map<std::string, int> counts;
    for (const std::string& k : kinds) counts[k] = 0;
    std::istringstream lines(body);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string op;
        words >> op;
        if (!op.empty() && op[0] == '@') words >> op;
        for (const std::string& k : kinds)
            if (op.rfind(k, 0) == 0 && (op.size() == k.size() || op[k.size()] == '.' || op[k.size()] == ' ')) ++counts[k];
    }
    return counts;
}

// What one entry's PTX must hold: how many instructions of each kind
// (count_by_kind's prefixes). Each row is derived by hand in its comment.
struct PtxCounts {
    const char* entry;  // method_<entry><float>
    std::map<std::string, int> counts;
};

const PtxCounts kPtxCounts[] = {
    // The compute-heavy kernel (chain.cuh): 32 accumulators started as x +
    // j/32, j = 0..31: 32 adds (x + 0.0f stays: it turns -0 into +0, so the
    // compiler may not drop it); 16 rounds of 32 updates, each a multiply (the
    // neighbour × 0.25) and an FMA: 512 of each; the sum of 32 terms: 31 adds.
    // 63 adds in all. One load (in[i]) and one store (out[i]).
    {"compute_full", {{"ld.global", 1}, {"st.global", 1}, {"fma.rn.f32", 512}, {"mul.f32", 512}, {"add.f32", 63}}},
    // Memory-only (v2, and v4, its code): v1's one load and one store kept, no
    // floating-point instruction left.
    {"compute_memory_only", {{"ld.global", 1}, {"st.global", 1}, {"fma.rn.f32", 0}, {"mul.f32", 0}, {"add.f32", 0}}},
    {"compute_guarded", {{"ld.global", 1}, {"st.global", 1}, {"fma.rn.f32", 0}, {"mul.f32", 0}, {"add.f32", 0}}},
    // Compute-only (v3): no load; the store is still in the code (under its
    // condition), and so is every operation of v1: 512 FMAs, 63 adds, and 513
    // multiplies, one more than v1's: the input i·2^-24 made from the index.
    // The condition compares the result with `never`, a parameter: a float
    // setp the compiler cannot decide.
    {"compute_compute_only",
     {{"ld.global", 0}, {"st.global", 1}, {"fma.rn.f32", 512}, {"mul.f32", 513}, {"add.f32", 63}, {"setp.neu.f32", 1}}},
    // SAXPY: x[i] and y[i] = in[n + i] loaded, one FMA, one store. Memory-only:
    // both loads and the store kept (as 32-bit words), the FMA gone, one XOR
    // joining them. Compute-only: no load, the FMA kept, the store under its condition.
    {"saxpy_full", {{"ld.global", 2}, {"st.global", 1}, {"fma.rn.f32", 1}}},
    {"saxpy_memory_only", {{"ld.global", 2}, {"st.global", 1}, {"fma.rn.f32", 0}, {"mul.f32", 0}, {"add.f32", 0}, {"xor.b32", 1}}},
    {"saxpy_compute_only", {{"ld.global", 0}, {"st.global", 1}, {"fma.rn.f32", 1}}},
    // The index pair, 16 steps. v8: h % d is h - (h / d)·d, so the compiler
    // makes one unsigned division a step serve both (16 div.u32, 16 mul.lo, 16
    // sub); PTX's div.u32 is no machine instruction but a sequence ptxas
    // expands. v9: 16 ANDs and 16 shifts, and no division at all.
    {"divide_modulo", {{"div.u32", 16}, {"rem.u32", 0}, {"mul.lo.s32", 16}, {"sub.s32", 16}}},
    {"mask_shift", {{"div.u32", 0}, {"rem.u32", 0}, {"and.b32", 16}, {"shr.u32", 16}}},
    // __sinf is one sin.approx, __expf one ex2.approx of x·log2 e (two
    // multiplies in all: that one and the product). sinf is range reduction
    // and a polynomial in FMAs (LibraryFunctionsAgainstIntrinsics), with no
    // sin.approx; expf scales into ex2.approx.ftz with FMAs around it.
    {"sin_exp_intrinsics", {{"sin.approx", 1}, {"ex2.approx", 1}, {"fma.rn.f32", 0}, {"mul.f32", 2}}},
    {"sin_exp", {{"sin.approx", 0}, {"ex2.approx", 1}}},
    // ((x·(1/6) + 0.5f)·x + 1.0)·x + 1.0f. v12: the first FMA and the multiply
    // are float (nothing double yet); + 1.0 converts that product to double
    // (cvt.f64.f32) and adds in double; ·x + 1.0f converts x and fuses into one
    // double FMA; the store converts back (cvt.rn.f32.f64). v13: three float FMAs.
    {"double_literal",
     {{"fma.rn.f32", 1}, {"mul.f32", 1}, {"cvt.f64.f32", 2}, {"add.f64", 1}, {"fma.rn.f64", 1}, {"cvt.rn.f32.f64", 1}}},
    {"float_literal", {{"fma.rn.f32", 3}, {"cvt.f64.f32", 0}, {"add.f64", 0}, {"fma.rn.f64", 0}, {"cvt.rn.f32.f64", 0}}},
    // Fusion. v14's first kernel: x and y loaded, one subtraction, d stored;
    // its second: d loaded, one multiply, d² stored. v15: both loads, the
    // subtraction and the multiply, one store: the store and load of d gone.
    {"unfused", {{"ld.global", 2}, {"st.global", 1}, {"sub.f32", 1}, {"mul.f32", 0}}},
    {"unfused_square", {{"ld.global", 1}, {"st.global", 1}, {"sub.f32", 0}, {"mul.f32", 1}}},
    {"fused", {{"ld.global", 2}, {"st.global", 1}, {"sub.f32", 1}, {"mul.f32", 1}}},
    // Fission. v16: two chains (keeping 0.75 and 0.5) from the same x: their
    // 32 starting adds are the same, computed once; 512 multiplies and 512
    // FMAs each; 31 adds each to sum them; one multiply for a·b. 32 + 62 = 94
    // adds, 1025 multiplies, 1024 FMAs. v17's first kernel is v1's chain (v1's
    // counts); its second the other chain and the product, and a second load
    // (a(x) from out).
    {"fat_kernel", {{"ld.global", 1}, {"st.global", 1}, {"fma.rn.f32", 1024}, {"mul.f32", 1025}, {"add.f32", 94}}},
    {"fission", {{"ld.global", 1}, {"st.global", 1}, {"fma.rn.f32", 512}, {"mul.f32", 512}, {"add.f32", 63}}},
    {"fission_second", {{"ld.global", 2}, {"st.global", 1}, {"fma.rn.f32", 512}, {"mul.f32", 513}, {"add.f32", 63}}},
    // The atomic sum: one load and one atomic add, no store and no float add
    // of its own: the addition happens at the address.
    {"atomic_sum", {{"ld.global", 1}, {"st.global", 0}, {"atom.global.add.f32", 1}, {"add.f32", 0}}},
    // Constant memory: the loop of 32 steps unrolled, each one lookup in the
    // __constant__ table and one FMA (p·x + c, contracted; the first step's p
    // = 0 stays an FMA: 0·x is not 0 for every x); x loaded once, p stored
    // once. Both keep all 32 ld.const: the table may change between launches
    // (cudaMemcpyToSymbol), so the compiler may not fold its entries in.
    {"constant_uniform", {{"ld.const", 32}, {"fma.rn.f32", 32}, {"ld.global", 1}, {"st.global", 1}}},
    {"constant_divergent", {{"ld.const", 32}, {"fma.rn.f32", 32}, {"ld.global", 1}, {"st.global", 1}}},
    // The shift copy, one read and one store each: v21 a plain ld.global (no
    // .nc: `in` is not __restrict__), v22 the read-only ld.global.nc of
    // __ldg, v23 no global load at all but one tex.1d fetch.
    {"shift_load", {{"ld.global", 1}, {"ld.global.nc", 0}, {"tex.1d", 0}, {"st.global", 1}}},
    {"shift_ldg", {{"ld.global", 1}, {"ld.global.nc", 1}, {"tex.1d", 0}, {"st.global", 1}}},
    {"shift_texture", {{"ld.global", 0}, {"tex.1d", 1}, {"st.global", 1}}},
};

class MethodPtxCounts : public testing::TestWithParam<PtxCounts> {};

TEST_P(MethodPtxCounts, AsDerivedByHand)
{
    std::vector<std::string> kinds;
    for (const auto& [kind, count] : GetParam().counts) kinds.push_back(kind);
    EXPECT_EQ(count_by_kind(entry_body(GetParam().entry), kinds), GetParam().counts);
}

INSTANTIATE_TEST_SUITE_P(Entries, MethodPtxCounts, testing::ValuesIn(kPtxCounts),
                         [](const testing::TestParamInfo<PtxCounts>& p) { return std::string(p.param.entry); });

// Every entry of the lab's PTX has its row (the versions' and their second kernels').
TEST(MethodPtx, EveryEntryCounted)
{
    std::size_t entries = 0;
    for (std::size_t at = 0; (at = std::string_view(kPtx).find(".entry ", at)) != std::string_view::npos; ++at) ++entries;
    EXPECT_EQ(entries, std::size(kPtxCounts));
}

// sinf's polynomial is a sequence of FMAs: at least 8 (their exact number is
// the library's choice, not this lab's); the intrinsics have none (the table).
TEST(MethodPtx, LibraryFunctionsAgainstIntrinsics)
{
    EXPECT_GE(count_by_kind(entry_body("sin_exp"), {"fma.rn.f32"}).at("fma.rn.f32"), 8);
}

// -use_fast_math on the whole file turns v10's sinf and expf into v11's
// intrinsics without changing its source: one sin.approx, one ex2.approx
// (both flushing subnormals to zero: .ftz), and no FMA left of sinf's
// polynomial. Compiled here with nvcc, as a student would build the file.
TEST(MethodPtx, FastMathTurnsLibraryCallsIntoIntrinsics)
{
    if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc";
    wl::ptx::CompileOptions o;
    o.include_dirs = {WARPLAB_SOURCE_DIR};
    o.extra_flags = {"-std=c++20", "-use_fast_math"};
    const std::string source = "#include \"kernels/method/10_sin_exp.cuh\"\n"
                               "template __global__ void warplab::method::method_sin_exp<float>(const float*, float*, unsigned);\n";
    const std::string ptx = wl::ptx::compile_source(source, "sin_exp_fast_math.cu", o).text;
    const auto fast = count_by_kind(entry_body("sin_exp", ptx), {"sin.approx.ftz", "ex2.approx.ftz", "fma.rn.f32"});
    EXPECT_EQ(fast.at("sin.approx.ftz"), 1);
    EXPECT_EQ(fast.at("ex2.approx.ftz"), 1);
    EXPECT_EQ(fast.at("fma.rn.f32"), 0);
}

// ---- the occupancy guard -----------------------------------------------------

// On an H100 (65536 registers, 228 KiB of shared memory, 32 blocks an SM), a
// block of 256 threads: v1's 38 registers a thread are allocated as 40, 10240
// a block: 6 blocks. v2's 10 registers (16 allocated, 4096 a block) allow 16,
// but 2048 threads an SM stop it at 8. v4 has v2's registers and 34 KiB + 1
// KiB reserved = 35 KiB of shared memory a block: 228 / 35 = 6 blocks, v1's.
TEST(MethodOccupancy, GuardRestoresTheFullKernelsBlocksPerSm)
{
    namespace occ = wl::occupancy;
    const occ::Arch& h100 = *occ::find_arch("h100");
    auto blocks = [&](const char* id) {
        const Version& v = *find_version(lab(), id);
        return occ::occupancy(h100, occ::launch_usage("method", v.kernel, v.bench_block, "float", {}, v.dynamic_shared_bytes).usage)
            .blocks_per_sm;
    };
    EXPECT_EQ(blocks("v1"), 6u);
    EXPECT_EQ(blocks("v2"), 8u);
    EXPECT_EQ(blocks("v3"), 6u);  // the compute-only variant keeps v1's registers: no guard needed
    EXPECT_EQ(blocks("v4"), blocks("v1"));
    EXPECT_EQ(blocks("v6"), blocks("v5"));  // SAXPY's variants change nothing: 8 blocks each
    EXPECT_EQ(blocks("v7"), blocks("v5"));
}

// Fission, from the build's ptxas report (sm_90a): v16's two chains hold 64
// accumulators at once, 70 registers a thread; each of v17's kernels holds
// one chain, 38, v1's. On an H100 a warp's registers are allocated in units
// of 8 a thread (70 → 72, 2304 a warp) from 4 sub-partitions of 16384:
// 7 warps each, 28 an SM, 3 blocks of 8 warps. 38 → 40: 1280 a warp, 12 a
// sub-partition, 48 an SM: 6 blocks, twice v16's.
TEST(MethodOccupancy, FissionHalvesTheRegistersAndDoublesTheBlocks)
{
    namespace occ = wl::occupancy;
    const occ::Arch& h100 = *occ::find_arch("h100");
    auto usage = [](const char* kernel) { return occ::launch_usage("method", kernel, 256, "float").usage; };
    EXPECT_EQ(usage("method_fat_kernel").registers_per_thread, 70u);
    for (const char* half : {"method_fission", "method_fission_second"}) {
        EXPECT_EQ(usage(half).registers_per_thread, 38u) << half;
        EXPECT_EQ(occ::occupancy(h100, usage(half)).blocks_per_sm, 6u) << half;
    }
    const occ::Occupancy fat = occ::occupancy(h100, usage("method_fat_kernel"));
    EXPECT_EQ(fat.blocks_per_sm, 3u);
    EXPECT_TRUE(fat.limited_by(occ::Limiter::Registers));
}

// ---- fusion: global traffic of every launch ----------------------------------

// The emulator with every launch's watched block traced (the lab's trace
// keeps the first launch only), block 0's global traffic summed over them.
struct EveryLaunchTraced : EmulatorBackend {
    explicit EveryLaunchTraced(EmulatorBackend&& backend) : EmulatorBackend(std::move(backend)) {}

    wl::trace::GlobalStats loads, stores;
    unsigned launches = 0;

    template <class V, class Args, class... A> void launch(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, const A&... args)
    {
        EmulatorBackend::launch(kernel, grid, block, args...);
        const wl::trace::Totals t = wl::trace::totals(wl::trace::analyze_steps(wl::trace::group_block(0, block.x, emu.take_records())));
        for (auto [sum, add] : {std::pair{&loads, &t.global_load}, std::pair{&stores, &t.global_store}})
            sum->requests += add->requests, sum->sectors += add->sectors;
        ++launches;
    }
};

template <class V> EveryLaunchTraced traffic_of(wl::emu::Emulator& emu, std::size_t n)
{
    configure(emu, request(V::meta.id, n));
    EveryLaunchTraced be{EmulatorBackend{.emu = emu, .module = lab_module<Description>(), .kernels = kKernels}};
    run_once<V>(be, make_input<V>(n, 1), n, 256);
    return be;
}

// Block 0 of n = 1000 (256 threads, 8 full warps; x at byte 0 and y at 4000,
// both on 32-byte sector boundaries): a warp's access to 32 consecutive
// floats is one request of 4 sectors. v14: the first launch loads x and y
// (16 requests) and stores d (8); the second loads d (8) and stores d² (8):
// 24 load and 16 store requests, 160 sectors = 20 bytes a thread. v15: 16
// and 8, 96 sectors = 12 bytes a thread, in one launch. The fission pair
// moves more than its fat kernel: v16 loads x and stores a·b (8 and 8); v17
// loads x, stores a, loads x and a, stores a·b (24 and 16).
TEST(MethodFusion, TrafficOfEveryLaunch)
{
    struct Expected {
        unsigned launches, load_requests, store_requests;
    };
    auto check = [](const EveryLaunchTraced& t, Expected e, const char* id) {
        EXPECT_EQ(t.launches, e.launches) << id;
        EXPECT_EQ(t.loads.requests, e.load_requests) << id;
        EXPECT_EQ(t.stores.requests, e.store_requests) << id;
        EXPECT_EQ(t.loads.sectors, 4 * e.load_requests) << id;
        EXPECT_EQ(t.stores.sectors, 4 * e.store_requests) << id;
    };
    wl::emu::Emulator emu;
    const EveryLaunchTraced unfused = traffic_of<V14>(emu, 1000), fused = traffic_of<V15>(emu, 1000);
    check(unfused, {2, 24, 16}, "v14");
    check(fused, {1, 16, 8}, "v15");
    EXPECT_EQ(32 * (unfused.loads.sectors + unfused.stores.sectors), 256u * 20);
    EXPECT_EQ(32 * (fused.loads.sectors + fused.stores.sectors), 256u * 12);
    check(traffic_of<V16>(emu, 1000), {1, 8, 8}, "v16");
    check(traffic_of<V17>(emu, 1000), {2, 24, 16}, "v17");
}

// The lab's own trace of a pair records its first launch only, as a
// reduction's first pass: v14's shows the difference kernel's 16 load and 8
// store requests, v15's traffic. The walkthrough says so.
TEST(MethodFusion, LabTraceRecordsTheFirstLaunch)
{
    const RunResult r = lab().run(request("v14", 1000));
    ASSERT_TRUE(r.ok) << r.check;
    std::size_t loads = 0, stores = 0;
    for (const wl::trace::LaneRecord& rec : r.records)
        if (rec.space == wl::trace::Space::Global) loads += rec.kind == wl::trace::Kind::Load, stores += rec.kind == wl::trace::Kind::Store;
    EXPECT_EQ(loads, 2u * 256);
    EXPECT_EQ(stores, 256u);
}

// A fusion that changes the rounding is caught: the check is exact, and
// (x - y)² expanded as x² - 2xy + y² rounds three products and two sums where
// the kernels round one difference and one product.
TEST(MethodFusion, CheckIsExact)
{
    const std::size_t n = 300;
    const std::vector<float> in = make_input<V15>(n, 4);
    std::vector<float> out = expected_output<V15>(in, n);
    EXPECT_TRUE(check_output<V15>(in, out).ok);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float x = in[i], y = in[n + i], expanded = x * x - 2 * x * y + y * y;
        differ += expanded != out[i];
        out[i] = expanded;
    }
    ASSERT_GT(differ, 0u);  // the expanded form rounds differently on some of these inputs
    EXPECT_FALSE(check_output<V15>(in, out).ok);
}

// ---- non-associativity: one sum in three orders ------------------------------

// The CPU's order: left to right, rounding to float after every addition.
float loop_sum(const std::vector<float>& in)
{
    float sum = 0;
    for (float x : in) sum += x;
    return sum;
}

// One seeded array of n = 100003 floats in [0, 1) summed three ways, each
// rounding to float after every addition: the CPU's loop, left to right; the
// reduction lab's v3, a tree of 256 a block in each of its passes
// (100003 → 391 → 2 → 1); v18's atomicAdd, in the order the lanes reach the
// address. Float addition is not associative ((a + b) + c rounds a + b first,
// a + (b + c) rounds b + c), so the orders give different sums, each within
// its bound of the exact sum (sum_error_bound): the loop and the atomics n - 1
// roundings on an element's path at most, the tree 3 passes × 8 levels = 24.
// Deterministic here: the data (seeded), the loop's order and the tree's
// order, so the loop's and the tree's sums are the same on every run. Not
// deterministic: the atomics' order across blocks. The emulator runs blocks
// on several host threads at once, as a GPU runs them on its SMs, and which
// block's atomics come first is decided at run time on both: v18's sum may
// change from run to run, and only its bound is asserted.
TEST(MethodSum, OneSumThreeOrders)
{
    const std::size_t n = 100003;
    const std::uint64_t seed = 1;  // the walkthrough's (the default)
    const std::vector<float> in = make_input<V18>(n, seed);
    ASSERT_EQ(in, reduction::make_input<float>(n, seed));  // the reduction lab sums the same array
    const float loop = loop_sum(in);
    const RunResult tree = find_lab("reduction")->run(request("v3", n, seed)), atomic = lab().run(request("v18", n, seed));
    ASSERT_TRUE(tree.ok) << tree.check;
    ASSERT_TRUE(atomic.ok) << atomic.check;
    const double exact = exact_sum(in);
    EXPECT_EQ(tree.expected, exact);
    EXPECT_LE(std::abs(loop - exact), sum_error_bound(in, n - 1));
    EXPECT_LE(std::abs(atomic.value - exact), sum_error_bound(in, n - 1));
    EXPECT_LE(std::abs(tree.value - exact), sum_error_bound(in, 24));
    // Two fixed orders, two answers (for this seed), neither the exact sum;
    // the tree, rounding each element's path 24 times where the loop rounds
    // it up to n - 1 times, lands closer.
    EXPECT_NE(double(loop), tree.value);
    EXPECT_NE(tree.value, exact);
    EXPECT_LT(std::abs(tree.value - exact), std::abs(loop - exact));
}

// The reduction lab's float tolerance is this bound for a tree of about 1678
// levels (1e-4 / 2^-24): an error the bound allows at 1600 levels passes
// its check, one it allows only beyond 1700 does not. The loop's and the
// tree's sums above pass it, as every order the versions take must.
TEST(MethodSum, ReductionToleranceIsTheBoundOfADeepTree)
{
    const std::vector<float> in = make_input<V18>(100003, 1);
    const double exact = exact_sum(in);
    EXPECT_TRUE(reduction::sum_matches<float>(exact + sum_error_bound(in, 1600), exact));
    EXPECT_FALSE(reduction::sum_matches<float>(exact + sum_error_bound(in, 1700), exact));
    const float loop = loop_sum(in);
    EXPECT_TRUE(reduction::sum_matches<float>(loop, exact));
}

// Within one block the emulator's order is its schedule's, fixed by the
// request: under lockstep a warp's lanes reach the address in lane order and
// the block's warps one after another, the loop's order, so the sum is the
// loop's bit for bit; under the independent schedule the lanes run in an
// order shuffled by the seed, the same for the same seed, and for seed 1 it
// gives another sum (n = 256: 124.997238 against 124.997231). Not a GPU's
// order: on a GPU the warps of a block race to the address at run time.
TEST(MethodSum, AtomicOrderInOneBlockIsTheSchedules)
{
    const std::size_t n = 256;  // one block
    const std::vector<float> in = make_input<V18>(n, 1);
    const float loop = loop_sum(in);
    RunRequest lockstep = request("v18", n, 1);
    lockstep.schedule = wl::emu::Schedule::Lockstep;
    EXPECT_EQ(lab().run(lockstep).value, double(loop));
    const double shuffled = lab().run(request("v18", n, 1)).value;
    EXPECT_NE(shuffled, double(loop));
    EXPECT_EQ(lab().run(request("v18", n, 1)).value, shuffled);
}

// The sum's check holds a result to its bound: one that is off by more than
// (n - 1)·2^-24·Σ|x| fails; the exact sum rounded to float passes.
TEST(MethodSum, CheckHoldsTheBound)
{
    const std::vector<float> in = make_input<V18>(1000, 2);
    const double exact = exact_sum(in), bound = sum_error_bound(in, in.size() - 1);
    EXPECT_TRUE(check_output<V18>(in, {float(exact)}).ok);
    const Checked far = check_output<V18>(in, {float(exact + 2 * bound)});
    EXPECT_FALSE(far.ok);
    EXPECT_NE(far.text.find("beyond"), std::string::npos) << far.text;
}

// ---- errors in ulp -----------------------------------------------------------

// ulp_of by hand: 1.0 lies in [2^0, 2^1), where floats are 2^-23 apart;
// 0.75 in [2^-1, 2^0): 2^-24. A float one step above 1 is 1 ulp from 1.
TEST(MethodUlp, UlpByHand)
{
    EXPECT_EQ(ulp_of(1.0), std::ldexp(1.0, -23));
    EXPECT_EQ(ulp_of(0.75), std::ldexp(1.0, -24));
    EXPECT_EQ(ulp_of(-3.0), std::ldexp(1.0, -22));
    EXPECT_EQ(ulp_error(std::nextafter(1.0f, 2.0f), 1.0), 1.0);
    EXPECT_EQ(ulp_error(1.0f, 1.0 + std::ldexp(1.0, -25)), 0.25);
}

double worst_ulp(const char* id)
{
    const RunResult r = lab().run(request(id, 4096, 9));
    EXPECT_TRUE(r.ok) << id << ": " << r.check;
    return r.value;
}

// The literal pair for x in [1, 2), by hand. t = x/6 + 0.5 lies in [0.67,
// 0.84): rounded to float, off by at most half its ulp, 2^-25.
// v12: u = t·x in [0.67, 1.67) carries t's error times x (< 2^-24) and its own
// rounding (<= 2^-24 where u >= 1): |du| <= 2^-23. The rest is in double,
// (u + 1)·x + 1, so du·x < 2^-22 reaches the result r in [2.67, 6.34), where
// an ulp is at least 2^-22: at most 1 ulp, plus the final rounding's half: 1.5.
// v13: s = t·x + 1 fused, in [1.67, 2.67): t's error times x (< 2^-24) and
// its rounding (<= 2^-23): |ds| <= 1.5·2^-23; ds·x < 3·2^-23 = 1.5·2^-22,
// at most 1.5 ulp of r, plus the final rounding's half: 2.
// On 4096 seeded inputs the stray double is the more accurate, as its bound
// says. sinf·expf: 2 ulp each (CUDA's programming guide) and the product's
// rounding.
TEST(MethodUlp, ErrorsAgainstDoubleReference)
{
    const double stray = worst_ulp("v12"), suffixed = worst_ulp("v13");
    EXPECT_LE(stray, 1.5);
    EXPECT_LE(suffixed, 2.0);
    EXPECT_LT(stray, suffixed);
    EXPECT_GT(stray, 0.0);
    EXPECT_LE(worst_ulp("v10"), 5.0);
}

// ---- constant memory: distinct addresses a warp instruction ----------------

// The constant loads of the watched block of one run, as the trace counts
// them (analysis.h: each warp instruction served once per distinct address).
wl::trace::ConstantStats constant_loads(const char* id, std::size_t n, unsigned block, unsigned watched)
{
    RunRequest req = request(id, n);
    req.block = block;
    req.watched_block = watched;
    const RunResult r = lab().run(req);
    EXPECT_TRUE(r.ok) << id << ": " << r.check;
    return wl::trace::totals(wl::trace::analyze_steps(wl::trace::group_block(watched, block, r.records))).constant_load;
}

// Requests, addresses and the worst n-way, comparable and printable as one.
std::tuple<unsigned, unsigned, unsigned> fields(const wl::trace::ConstantStats& s) { return {s.requests, s.addresses, s.worst}; }

// By hand. Each thread makes 32 lookups (the unrolled loop), so a warp
// issues 32 constant-load instructions, whatever its active lanes.
// n = 1000 in blocks of 256: block 3 holds elements 768..999, 232 threads:
// warps 0-6 full, warp 7 with 8 active lanes; 8 warps × 32 = 256 requests.
//   v19 reads entry k at step k in every lane: 1 address each: 256, 1-way.
//   v20's lane l reads entry (k + l) mod 32: a full warp's 32 lanes 32
//   different entries, 7 × 32 × 32 = 7168; the partial warp's 8 lanes 8
//   different ones, 32 × 8 = 256; 7424 in all, 32-way at worst.
// n = 40 in blocks of 32: block 1 is one warp of 8 active lanes (elements
// 32..39): 32 requests; v20 8-way each (256 addresses), v19 1-way (32).
TEST(MethodConstant, DistinctAddressesAWarpInstruction)
{
    using Fields = std::tuple<unsigned, unsigned, unsigned>;  // requests, addresses, worst
    EXPECT_EQ(fields(constant_loads("v19", 1000, 256, 3)), Fields(256, 256, 1));
    EXPECT_EQ(fields(constant_loads("v20", 1000, 256, 3)), Fields(256, 7424, 32));
    EXPECT_EQ(fields(constant_loads("v19", 40, 32, 1)), Fields(32, 32, 1));
    EXPECT_EQ(fields(constant_loads("v20", 40, 32, 1)), Fields(32, 256, 8));
}

// The counts tell the two lookups apart: the uniform kernel does not pass as
// the divergent one, nor the divergent as the uniform, and a version without
// __constant__ reads (v21) counts none.
TEST(MethodConstant, CountsTellTheLookupsApart)
{
    const wl::trace::ConstantStats uniform = constant_loads("v19", 1000, 256, 0), divergent = constant_loads("v20", 1000, 256, 0);
    EXPECT_EQ(divergent.worst, 32u);
    EXPECT_EQ(divergent.addresses, 32 * divergent.requests);
    EXPECT_NE(uniform.worst, 32u);
    EXPECT_NE(uniform.addresses, 32 * uniform.requests);
    EXPECT_EQ(uniform.addresses, uniform.requests);
    EXPECT_NE(divergent.addresses, divergent.requests);
    EXPECT_EQ(constant_loads("v21", 1000, 256, 0).requests, 0u);
}

// The lookups' results are each lane's own polynomial: v19's output fails
// v20's check (only lane 0 of each warp, which starts at entry 0 as v19
// does, would match), and v20's fails v19's. p = 1/32 + 2/32·x + ... at x =
// 0 is 32/32 = 1 for v19; for v20's lane 1 (the walk from entry 1, ending
// at entry 0) it is 1/32.
TEST(MethodConstant, EachLookupsResultsAreItsOwn)
{
    EXPECT_EQ(polynomial_reference(0.0f, 0, false), 1.0f);
    EXPECT_EQ(polynomial_reference(0.0f, 1, true), 1.0f / 32);
    EXPECT_EQ(polynomial_reference(0.0f, 32, true), 1.0f);  // lane 0 of the second warp
    const std::size_t n = 77;
    const std::vector<float> in = make_input<V19>(n, 6);
    EXPECT_TRUE(check_output<V19>(in, expected_output<V19>(in, n)).ok);
    EXPECT_TRUE(check_output<V20>(in, expected_output<V20>(in, n)).ok);
    EXPECT_FALSE(check_output<V20>(in, expected_output<V19>(in, n)).ok);
    EXPECT_FALSE(check_output<V19>(in, expected_output<V20>(in, n)).ok);
}

// ---- textures: the shift copy read three ways --------------------------------

// One run of version V on the emulator, its output.
template <class V> std::vector<float> output_of(const std::vector<float>& in, std::size_t n)
{
    wl::emu::Emulator emu;
    configure(emu, request(V::meta.id, n));
    EmulatorBackend be{.emu = emu, .module = lab_module<Description>(), .kernels = kKernels};
    return run_once<V>(be, in, n, 256);
}

// The three reads give the same floats, bit for bit, for an odd n: out[i] =
// in[i + 1], and the last element, whose i + 1 is past the end, 0.
TEST(MethodTexture, ThreeReadsOneResult)
{
    const std::size_t n = 1001;
    const std::vector<float> in = make_input<V21>(n, 8);
    const std::vector<float> load = output_of<V21>(in, n);
    EXPECT_EQ(load[0], in[1]);
    EXPECT_EQ(load[n - 2], in[n - 1]);
    EXPECT_EQ(load[n - 1], 0.0f);
    EXPECT_EQ(output_of<V22>(in, n), load);
    EXPECT_EQ(output_of<V23>(in, n), load);
}

// A texture that is not over the whole input is caught: made 5 texels
// short, its last 5 fetches read 0 (a 1D fetch past a linear texture's end
// reads zeros), and the check names the first such element, n - 6 (whose
// i + 1 = n - 5 is the first texel missing). A copy without the shift fails too.
TEST(MethodTexture, CheckCatchesAShortTextureAndAMissingShift)
{
    const std::size_t n = 300;
    const std::vector<float> in = make_input<V23>(n, 2);
    wl::emu::Emulator emu;
    configure(emu, request("v23", n));
    EmulatorBackend be{.emu = emu, .module = lab_module<Description>(), .kernels = kKernels};
    float* d_in = be.alloc<float>(n);
    float* d_out = be.alloc<float>(n);
    be.copy_to_device(d_in, in.data(), n);
    const TextureObject shorter = linear_texture(be, d_in, n - 5);
    launch<V23>(be, static_cast<const float*>(d_in), d_out, n, 256, shorter);
    destroy_texture(be, shorter);
    std::vector<float> out(n);
    be.copy_to_host(out.data(), static_cast<const float*>(d_out), n);
    const Checked c = check_output<V23>(in, out);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.value, double(n - 6)) << c.text;
    EXPECT_FALSE(check_output<V21>(in, std::vector<float>(in.begin(), in.end())).ok);
}

// ---- the verdict -------------------------------------------------------------

// The lecture's readings on times made up to fall in each case, full = 1 ms:
// memory-only 0.95 and compute-only 0.2: memory-bound; 0.2 and 0.95: compute;
// 0.9 and 0.9: both; 0.5 and 0.45 (together about the full time): latency.
// At the threshold: 0.75 is "about the full time", 0.74 is much faster.
TEST(MethodVerdict, LecturesReadings)
{
    EXPECT_EQ(bound_of(1.0, 0.95, 0.2), Bound::Memory);
    EXPECT_EQ(bound_of(1.0, 0.2, 0.95), Bound::Compute);
    EXPECT_EQ(bound_of(1.0, 0.9, 0.9), Bound::Both);
    EXPECT_EQ(bound_of(1.0, 0.5, 0.45), Bound::Latency);
    EXPECT_EQ(bound_of(1.0, 0.75, 0.1), Bound::Memory);
    EXPECT_EQ(bound_of(1.0, 0.74, 0.1), Bound::Latency);
}

TEST(MethodVerdict, LinesFromATable)
{
    BenchTable t;
    auto row = [](const char* v, double ms) {
        BenchRow r;
        r.version = v, r.median_ms = ms, r.ok = true;
        return r;
    };
    t.rows = {row("v1", 2.0), row("v2", 0.1), row("v3", 1.9), row("v4", 0.2), row("v5", 0.5), row("v6", 0.49), row("v7", 0.02)};
    const std::string text = verdict_lines(t);
    EXPECT_NE(text.find("compute-heavy kernel: full 2.0000 ms (v1), memory-only 0.2000 ms (v4), compute-only 1.9000 ms (v3): compute-bound"),
              std::string::npos) << text;
    EXPECT_NE(text.find("memory-heavy kernel: full 0.5000 ms (v5), memory-only 0.4900 ms (v6), compute-only 0.0200 ms (v7): memory-bound"),
              std::string::npos) << text;
    t.rows[2].ok = false;  // a wrong row is no time to read
    EXPECT_EQ(verdict_lines(t).find("compute-heavy"), std::string::npos);
}

}  // namespace
}  // namespace warplab::method
