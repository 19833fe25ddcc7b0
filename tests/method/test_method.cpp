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

#include "labs/common/lab.h"
#include "labs/method/problem.h"
#include "labs/method/run.h"
#include "labs/method/verdict.h"
#include "warplab/occupancy.h"
#include "warplab/ptx/ptx.h"

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

// A wrong output is caught, by the same check the runs use: one element of
// v1's output changed, one element of v3's written.
TEST(MethodRun, CheckCatchesAWrongElement)
{
    const std::size_t n = 40;
    const std::vector<float> in = make_input<V1>(n, 3);
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = expected<V1>(in, i, n);
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
    EXPECT_THROW(lab().run(request("v14", 100)), std::invalid_argument);
    EXPECT_THROW(lab().run(request("v5", std::size_t(1) << 30)), std::invalid_argument);  // 2n floats past 32-bit indices
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

const std::vector<std::string> kSearchKinds{"ld.global", "st.global", "fma.rn.f32", "mul.f32", "add.f32", "xor.b32"};

// The compute-heavy kernel (chain.cuh), derived by hand: 32 accumulators
// started as x + j/32, j = 0..31: 32 adds (x + 0.0f stays: it turns -0 into
// +0, so the compiler may not drop it); 16 rounds of 32 updates, each a
// multiply (the neighbour × 0.25) and an FMA: 512 of each; the sum of 32
// terms: 31 adds. 63 adds in all. One load (in[i]) and one store (out[i]).
TEST(MethodPtx, ComputeHeavyKernelWhole)
{
    const auto c = count_by_kind(entry_body("compute_full"), kSearchKinds);
    EXPECT_EQ(c.at("ld.global"), 1);
    EXPECT_EQ(c.at("st.global"), 1);
    EXPECT_EQ(c.at("fma.rn.f32"), 512);
    EXPECT_EQ(c.at("mul.f32"), 512);
    EXPECT_EQ(c.at("add.f32"), 63);
}

// Memory-only (v2, and v4, its code): v1's one load and one store kept, no
// floating-point instruction left.
TEST(MethodPtx, MemoryOnlyKeepsTheLoadsAndDropsTheArithmetic)
{
    for (const char* name : {"compute_memory_only", "compute_guarded"}) {
        const auto c = count_by_kind(entry_body(name), kSearchKinds);
        EXPECT_EQ(c.at("ld.global"), 1) << name;
        EXPECT_EQ(c.at("st.global"), 1) << name;
        EXPECT_EQ(c.at("fma.rn.f32") + c.at("mul.f32") + c.at("add.f32"), 0) << name;
    }
}

// Compute-only (v3): no load; the store is still in the code (under its
// condition), and so is every operation of v1: 512 FMAs, 63 adds, and 513
// multiplies, one more than v1's: the input i·2^-24 made from the index.
TEST(MethodPtx, ComputeOnlyKeepsTheArithmeticAndDropsTheLoad)
{
    const std::string body = entry_body("compute_compute_only");
    const auto c = count_by_kind(body, kSearchKinds);
    EXPECT_EQ(c.at("ld.global"), 0);
    EXPECT_EQ(c.at("st.global"), 1);
    EXPECT_EQ(c.at("fma.rn.f32"), 512);
    EXPECT_EQ(c.at("mul.f32"), 513);
    EXPECT_EQ(c.at("add.f32"), 63);
    // The condition compares the result with `never`, a parameter: a float setp the compiler cannot decide.
    EXPECT_EQ(count_by_kind(body, {"setp.neu.f32"}).at("setp.neu.f32"), 1);
}

// SAXPY: x[i] and y[i] = in[n + i] loaded, one FMA, one store. Memory-only:
// both loads and the store kept (as 32-bit words), the FMA gone, one XOR
// joining them. Compute-only: no load, the FMA kept, the store under its condition.
TEST(MethodPtx, SaxpyVariants)
{
    const auto full = count_by_kind(entry_body("saxpy_full"), kSearchKinds);
    EXPECT_EQ(full.at("ld.global"), 2);
    EXPECT_EQ(full.at("st.global"), 1);
    EXPECT_EQ(full.at("fma.rn.f32"), 1);
    const auto memory = count_by_kind(entry_body("saxpy_memory_only"), kSearchKinds);
    EXPECT_EQ(memory.at("ld.global"), 2);
    EXPECT_EQ(memory.at("st.global"), 1);
    EXPECT_EQ(memory.at("fma.rn.f32") + memory.at("mul.f32") + memory.at("add.f32"), 0);
    EXPECT_EQ(memory.at("xor.b32"), 1);
    const auto compute = count_by_kind(entry_body("saxpy_compute_only"), kSearchKinds);
    EXPECT_EQ(compute.at("ld.global"), 0);
    EXPECT_EQ(compute.at("st.global"), 1);
    EXPECT_EQ(compute.at("fma.rn.f32"), 1);
}

// The index pair, 16 steps. v8: h % d is h - (h / d)·d, so the compiler makes
// one unsigned division a step serve both (16 div.u32, 16 mul.lo, 16 sub);
// PTX's div.u32 is no machine instruction but a sequence ptxas expands. v9:
// 16 ANDs and 16 shifts, and no division at all.
TEST(MethodPtx, DivisionAgainstMaskAndShift)
{
    const std::vector<std::string> kinds{"div.u32", "rem.u32", "and.b32", "shr.u32", "mul.lo.s32", "sub.s32"};
    const auto divide = count_by_kind(entry_body("divide_modulo"), kinds);
    EXPECT_EQ(divide.at("div.u32"), 16);
    EXPECT_EQ(divide.at("rem.u32"), 0);
    EXPECT_EQ(divide.at("mul.lo.s32"), 16);
    EXPECT_EQ(divide.at("sub.s32"), 16);
    const auto mask = count_by_kind(entry_body("mask_shift"), kinds);
    EXPECT_EQ(mask.at("div.u32") + mask.at("rem.u32"), 0);
    EXPECT_EQ(mask.at("and.b32"), 16);
    EXPECT_EQ(mask.at("shr.u32"), 16);
}

// sinf/expf against the intrinsics: __sinf is one sin.approx, __expf one
// ex2.approx of x·log2 e (two multiplies in all: that one and the product).
// sinf is range reduction and a polynomial in FMAs, with no sin.approx;
// expf scales into ex2.approx.ftz with FMAs around it.
TEST(MethodPtx, LibraryFunctionsAgainstIntrinsics)
{
    const std::vector<std::string> kinds{"sin.approx", "ex2.approx", "fma.rn.f32", "mul.f32"};
    const auto intrinsics = count_by_kind(entry_body("sin_exp_intrinsics"), kinds);
    EXPECT_EQ(intrinsics.at("sin.approx"), 1);
    EXPECT_EQ(intrinsics.at("ex2.approx"), 1);
    EXPECT_EQ(intrinsics.at("fma.rn.f32"), 0);
    EXPECT_EQ(intrinsics.at("mul.f32"), 2);
    const auto library = count_by_kind(entry_body("sin_exp"), kinds);
    EXPECT_EQ(library.at("sin.approx"), 0);
    EXPECT_EQ(library.at("ex2.approx"), 1);
    EXPECT_GE(library.at("fma.rn.f32"), 8);
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

// ((x·(1/6) + 0.5f)·x + 1.0)·x + 1.0f. v12: the first FMA and the multiply
// are float (nothing double yet); + 1.0 converts that product to double
// (cvt.f64.f32) and adds in double; ·x + 1.0f converts x and fuses into one
// double FMA; the store converts back (cvt.rn.f32.f64). v13: three float FMAs.
TEST(MethodPtx, StrayDoubleLiteral)
{
    const std::vector<std::string> kinds{"fma.rn.f32", "mul.f32", "cvt.f64.f32", "add.f64", "fma.rn.f64", "cvt.rn.f32.f64"};
    const auto stray = count_by_kind(entry_body("double_literal"), kinds);
    EXPECT_EQ(stray.at("fma.rn.f32"), 1);
    EXPECT_EQ(stray.at("mul.f32"), 1);
    EXPECT_EQ(stray.at("cvt.f64.f32"), 2);
    EXPECT_EQ(stray.at("add.f64"), 1);
    EXPECT_EQ(stray.at("fma.rn.f64"), 1);
    EXPECT_EQ(stray.at("cvt.rn.f32.f64"), 1);
    const auto suffixed = count_by_kind(entry_body("float_literal"), kinds);
    EXPECT_EQ(suffixed.at("fma.rn.f32"), 3);
    EXPECT_EQ(suffixed.at("cvt.f64.f32") + suffixed.at("add.f64") + suffixed.at("fma.rn.f64") + suffixed.at("cvt.rn.f32.f64"), 0);
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
