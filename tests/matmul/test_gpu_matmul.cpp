// GPU tests of the matmul lab: skip, saying why, where no CUDA GPU is present.
//
// 1. For every version, the instrumented kernel on the GPU records the same
//    warp-level events as on the emulator, event for event (same steps,
//    sites, masks, offsets, values), at the trace default (one block's worth
//    of C, K = 64) and at an awkward shape whose tiles are all partial.
//    Both backends group lane records with the same code, and the inputs are
//    the same seeded floats, so even the values loaded and stored must agree:
//    each lane adds its products in the same order on both. Except v10's
//    stores of C: its tensor cores' adder rounds in its own way, so those
//    values agree within a bound (same_events below) and everything else exactly.
// 2. The timing build of every version (what `warplab bench` times) against
//    cuBLAS SGEMM in pedantic FP32, every element of C within the lab's
//    tolerance for the version's arithmetic (labs/matmul/problem.h; TF32 for
//    v10, v11 and v12, BF16 for v14), at these shapes: awkward small ones,
//    1000^3 and 4096^3.
//    C is poisoned to NaN first, so a kernel that writes nothing (v11 built
//    without sm_90a) fails. cuBLAS is itself checked against the CPU's
//    double-precision product on the rows the CPU can afford.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <type_traits>

#include "labs/common/traced_run.h"
#include "labs/matmul/run.h"
#include "labs/matmul/versions.h"
#include "tests/gpu/gpu_test_helpers.h"

namespace {

using namespace warplab;
using warplab::test::first_difference;

RunRequest request(const std::string& version, std::vector<std::size_t> shape, BackendChoice backend)
{
    RunRequest r;
    r.version = version;
    r.type = "float";
    r.shape = std::move(shape);
    r.backend = backend;
    r.seed = 7;
    return r;
}


// Every version, or only those the emulator can run (a GPU-only version has no
// emulator trace to compare with).
std::vector<std::string> versions(bool emulated_only = false)
{
    std::vector<std::string> out;
    for (const Version& v : find_lab("matmul")->versions)
        if (!emulated_only || !v.gpu_only) out.push_back(v.id);
    return out;
}

// The events agree, except that the float values a TF32 version stores to
// global memory (C) may differ by `tolerance` each. Derivation: a C element
// is K/8 mma.sync roundings of partial sums of at most S = sum_k |a·b| <= K
// (inputs in [-1, 1)); the GPU's and the emulator's rounding of each differ
// by at most 2 ulp, 2·2^-23·S, so C by at most (K/4)·2^-23·K. A product
// from the wrong lane or k moves C by |a·b|, about 0.25.
bool same_events(const std::vector<wl::trace::WarpEvent>& gpu, const std::vector<wl::trace::WarpEvent>& cpu,
                 double tolerance)
{
    if (gpu.size() != cpu.size()) return false;
    for (std::size_t i = 0; i < gpu.size(); ++i) {
        const bool c_store = gpu[i].kind == wl::trace::Kind::Store && gpu[i].space == wl::trace::Space::Global;
        if (tolerance == 0 || !c_store) {
            if (!(gpu[i] == cpu[i])) return false;
            continue;
        }
        wl::trace::WarpEvent g = gpu[i], c = cpu[i];
        g.value = c.value = {};
        if (!(g == c)) return false;
        for (unsigned lane = 0; lane < wl::trace::kDefaultWarpSize; ++lane) {
            float gv[4], cv[4];
            std::memcpy(gv, gpu[i].value[lane].data(), sizeof gv);
            std::memcpy(cv, cpu[i].value[lane].data(), sizeof cv);
            for (unsigned e = 0; e < gpu[i].size / 4; ++e)
                if (!(std::abs(double(gv[e]) - cv[e]) <= tolerance)) return false;
        }
    }
    return true;
}

class GpuMatmulTrace : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuMatmulTrace, EqualsTheEmulatorEventForEvent)
{
    REQUIRE_GPU();
    const Lab& lab = *find_lab("matmul");
    // {}: the version's trace default; 67×45×33: partial tiles everywhere, the
    // scalar fallback of the float4 versions (K and N are odd). v13's split
    // tiles are finished by whichever block counts in last, on a GPU a
    // different one from run to run (the emulator's is always the highest),
    // so the watched block's trace is compared where every tile is whole: K at
    // most 16 makes one k-tile per tile and a block per tile (256×512×16: 4
    // blocks; 67×45×9: one, partial), where nothing is shared out and v13
    // launches v9's kernel.
    const bool whole_tiles_only = GetParam() == "v13";
    using Shapes = std::vector<std::vector<std::size_t>>;
    const Shapes shapes = whole_tiles_only ? Shapes{{256, 512, 16}, {67, 45, 9}} : Shapes{{}, {67, 45, 33}};
    for (const std::vector<std::size_t>& shape : shapes) {
        SCOPED_TRACE(shape.empty() ? "trace default" : std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + "x" + std::to_string(shape[2]));
        const TracedRun gpu = trace_version(lab, request(GetParam(), shape, BackendChoice::Gpu));
        const TracedRun cpu = trace_version(lab, request(GetParam(), shape, BackendChoice::Cpu));
        ASSERT_TRUE(gpu.result.ok) << gpu.result.check;
        ASSERT_TRUE(cpu.result.ok) << cpu.result.check;
        ASSERT_FALSE(cpu.block.events.empty());
        EXPECT_EQ(gpu.block.steps, cpu.block.steps);
        const double k = shape.empty() ? 64 : shape[2];  // the trace default's K is 64
        const double tolerance = GetParam() == "v10" ? k / 4 * std::ldexp(1.0, -23) * k : 0.0;
        EXPECT_TRUE(same_events(gpu.block.events, cpu.block.events, tolerance))
            << first_difference(gpu.block.events, cpu.block.events);
        EXPECT_EQ(gpu.block.shared_arrays.size(), cpu.block.shared_arrays.size());
    }
}

INSTANTIATE_TEST_SUITE_P(Matmul, GpuMatmulTrace, ::testing::ValuesIn(versions(true)),
                         [](const auto& info) { return info.param; });

// A GPU-only version is still traced on the GPU: correct, with a trace to
// show. Except v11, v12, v14 and v15: their wgmma exists only in sm_90a code, and the PTX
// the GPU trace instruments is compute_90's, where their bodies are empty;
// asking for their trace is refused, saying so (the GpuMatmulVsCublas tests
// check their results).
TEST(GpuMatmulTraceGpuOnly, RecordsTheWatchedBlock)
{
    REQUIRE_GPU();
    const Lab& lab = *find_lab("matmul");
    for (const Version& v : lab.versions) {
        if (!v.gpu_only) continue;
        SCOPED_TRACE(v.id);
        if (std::string(v.id) == "v11" || std::string(v.id) == "v12" || std::string(v.id) == "v14" || std::string(v.id) == "v15") {
            try {
                trace_version(lab, request(v.id, {67, 45, 33}, BackendChoice::Gpu));
                ADD_FAILURE() << v.id << " was traced from PTX that has no wgmma";
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find(std::string(v.id) + " is not traced"), std::string::npos) << e.what();
            }
            continue;
        }
        const TracedRun gpu = trace_version(lab, request(v.id, {67, 45, 33}, BackendChoice::Gpu));
        ASSERT_TRUE(gpu.result.ok) << gpu.result.check;
        EXPECT_FALSE(gpu.block.events.empty());
    }
}

// An untraced run on the GPU (record = false) goes through the run skeleton as
// a trace does, and v14's (v15's) launch then rounds A and B to bf16 itself (the bench
// rounds them before its timing instead). C is checked against the CPU's FP64
// product within the BF16 bound (problem.h): 67×45×33 leaves partial tiles and
// N = 45 makes the kernel store C from registers; 128×256×64 is one whole
// tile, stored by the copy engine.
TEST(GpuMatmulUntraced, Bf16LaunchRoundsItsOwnInputs)
{
    REQUIRE_GPU();
    const Lab& lab = *find_lab("matmul");
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{67, 45, 33}, {128, 256, 64}}) {
        for (const char* version : {"v14", "v15"}) {
            RunRequest r = request(version, shape, BackendChoice::Gpu);
            r.record = false;
            const RunResult result = lab.run(r);
            EXPECT_TRUE(result.ok) << version << ", " << result.problem << ": " << result.check;
            EXPECT_TRUE(result.records.empty());
        }
    }
}

class GpuMatmulVsCublas : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuMatmulVsCublas, AwkwardShapes)
{
    REQUIRE_GPU();
    for (const std::vector<std::size_t>& shape :
         {std::vector<std::size_t>{1, 1, 1}, {17, 33, 9}, {67, 45, 33}, {128, 128, 128}, {100, 60, 20},
          {300, 129, 257}, {1, 513, 64}, {513, 1, 64}, {64, 64, 1},
          // K not a multiple of 4 (v11 copies single floats), and M one past a tile with a thin N
          {33, 70, 129}, {4097, 31, 65},
          // v14: 18 × 9 = 162 tiles, two per block, C's rows whole 16 bytes (its copy-engine store), the last
          // tile column 4 wide; C smaller than one box of the store (3 × 4); a row past a tile with a
          // 4-wide second tile column. The shapes above with N % 4 != 0 take its store from registers
          {2200, 2052, 64}, {3, 4, 5}, {129, 260, 70}}) {
        const RunResult r = find_lab("matmul")->check_on_gpu(request(GetParam(), shape, BackendChoice::Gpu));
        EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
    }
}

TEST_P(GpuMatmulVsCublas, Size1000)
{
    REQUIRE_GPU();
    const RunResult r = find_lab("matmul")->check_on_gpu(request(GetParam(), {1000}, BackendChoice::Gpu));
    EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
}

TEST_P(GpuMatmulVsCublas, Size4096)
{
    REQUIRE_GPU();
    const RunResult r = find_lab("matmul")->check_on_gpu(request(GetParam(), {4096}, BackendChoice::Gpu));
    EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
}

INSTANTIATE_TEST_SUITE_P(Matmul, GpuMatmulVsCublas, ::testing::ValuesIn(versions()),
                         [](const auto& info) { return info.param; });

// v8 runs one of its tile configurations, picked by the size of C and the
// GPU's SM count (choose_tiles in labs/matmul/versions.h), so the shapes above
// may not reach them all. Each is checked against cuBLAS at the smallest
// square size, a multiple of 64 up to 4096, at which this GPU's rule picks it
// (on 132 SMs: 64 for 64×64, 1088 for 128×64, 1472 for 128×128), with K = 96,
// a multiple of every BK (blocks inside A and B take the unchecked float4
// loads), and K = 97 (the scalar fallback); the run must say which tiles ran.
TEST(GpuMatmulV8Tiles, EachConfigurationAgainstCublas)
{
    REQUIRE_GPU();
    const unsigned sms = gpu_status().multiprocessors;
    ASSERT_GT(sms, 0u);
    std::size_t covered = 0;
    for_each_version<matmul::V8::tile_choices>([&](auto config) {
        using Config = decltype(config);
        const std::string tiles = std::to_string(Config::tiles.bm) + "×" + std::to_string(Config::tiles.bn) + " tile of C";
        for (std::size_t s = 64; s <= 4096; s += 64) {
            bool picked = false;
            matmul::with_tiles<matmul::V8>(s, s, sms, [&](auto c) { picked = std::is_same_v<decltype(c), Config>; });
            if (!picked) continue;
            for (std::size_t k : {96, 97}) {
                const RunResult r = find_lab("matmul")->check_on_gpu(request("v8", {s, s, k}, BackendChoice::Gpu));
                EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
                EXPECT_NE(r.problem.find(tiles), std::string::npos) << r.problem;
            }
            ++covered;
            break;
        }
        return false;
    });
    EXPECT_EQ(covered, std::tuple_size_v<matmul::V8::tile_choices>) << "a configuration no size up to 4096 gets on " << sms << " SMs";
}

}  // namespace
