// Every registered matmul version computes C = A·B correctly on the emulator
// for awkward shapes: 1×1×1, sizes that are no multiple of any tile
// (17×33×9, 67×45×33), one or more whole tiles (128^3), and non-square
// shapes, including single rows and columns and K smaller than a tile. The
// version list comes from the lab registry, never from here.
//
// What "correct" means is the lab's own check (labs/matmul/problem.h): every
// element of C within gamma·S + 1e-6 of the double-precision product, where
// S = sum_k |a_ik b_kj| and gamma = min(K, 8·sqrt(K))·2^-24; NaN or infinity
// fails, and C starts as NaN, so an element no thread writes fails too.
// Inputs are seeded (uniform in [-1, 1)); three seeds per shape.
//
// Run time: the largest cases (128^3: 2M multiply-adds, v1-v3 with
// 1024-thread blocks and a traced access per operand) take a fraction of a
// second each; the file runs in well under a minute on 2 cores. The lockstep
// schedule (a lane switch at every access) is run on the small shapes only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "emulator/helpers.h"
#include "labs/common/make_lab.h"
#include "labs/matmul/run.h"
#include "warplab/ptx/ptx.h"

namespace warplab::test {
namespace {

const Lab& matmul_lab()
{
    const Lab* lab = find_lab("matmul");
    if (!lab) throw std::logic_error("the registry has no matmul lab");
    return *lab;
}

struct Case {
    std::string version;
    std::vector<std::size_t> shape;
    Schedule schedule;
    std::uint64_t seed;
};

std::string case_name(const Case& c)
{
    std::string name = c.version + "_" + std::to_string(c.shape[0]) + "x" + std::to_string(c.shape[1]) + "x" +
                       std::to_string(c.shape[2]) + "_" + schedule_name(c.schedule) + "_seed" + std::to_string(c.seed);
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

const std::vector<std::vector<std::size_t>> kSmallShapes = {
    {1, 1, 1}, {17, 33, 9}, {67, 45, 33}, {100, 60, 20}, {1, 200, 3}, {200, 1, 5}, {40, 130, 7}, {129, 5, 64}};
const std::vector<std::vector<std::size_t>> kLargeShapes = {{128, 128, 128}, {150, 260, 48}};

std::vector<Case> all_cases()
{
    std::vector<Case> out;
    for (const VersionMeta& v : matmul_lab().versions) {
        if (v.gpu_only) continue;  // v11, v12: refused on the emulator (test_matmul_tf32.cpp); their GPU test is test_gpu_matmul
        for (const auto& shape : kSmallShapes) {
            for (std::uint64_t seed : {1, 2, 3}) out.push_back({v.id, shape, Schedule::Independent, seed});
            out.push_back({v.id, shape, Schedule::Lockstep, 1});
        }
        for (const auto& shape : kLargeShapes) out.push_back({v.id, shape, Schedule::Independent, 1});
    }
    return out;
}

class MatmulCorrect : public ::testing::TestWithParam<Case> {};

TEST_P(MatmulCorrect, MatchesTheCpuReference)
{
    const Case& c = GetParam();
    RunRequest req = emulator_request(c.version, 0, 0, "float", c.schedule, c.seed);
    req.shape = c.shape;
    req.record = false;
    const RunResult r = matmul_lab().run(req);
    EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
    EXPECT_EQ(r.shape, (std::vector<std::size_t>{c.shape[0], c.shape[1], c.shape[2]}));
}

INSTANTIATE_TEST_SUITE_P(Matmul, MatmulCorrect, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return case_name(info.param); });

// A wrong kernel must fail the same check: v1 launched on a B whose last row
// is dropped (K - 1 instead of K) gives a C that misses one product per element.
TEST(MatmulCheck, ADroppedProductFails)
{
    const matmul::Shape s{17, 33, 9};
    const matmul::Inputs in = matmul::make_inputs(s, 1);
    const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
    std::vector<float> c(s.m * s.n);
    for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t j = 0; j < s.n; ++j) {
            float acc = 0;
            for (std::size_t k = 0; k + 1 < s.k; ++k) acc += in.a[i * s.k + k] * in.b[k * s.n + j];
            c[i * s.n + j] = acc;
        }
    const matmul::Comparison cmp = matmul::compare(c, ref.c, ref.abs, matmul::tolerance(s.k, false));
    EXPECT_FALSE(cmp.ok);
    EXPECT_GT(cmp.bad, s.m * s.n / 2) << "most elements lose a product of two numbers in [-1, 1)";
    // One NaN is enough to fail.
    std::vector<float> exact(ref.c.begin(), ref.c.end());
    exact[5] = std::nanf("");
    EXPECT_FALSE(matmul::compare(exact, ref.c, ref.abs, matmul::tolerance(s.k, false)).ok);
}

// The reference shares its rows out among the host's threads where the work
// is large enough: 131 rows (odd, so the threads' shares differ) of a
// 131x257x255 product are 8.6 M multiply-adds, two threads' worth or more.
// Each element is summed over k in order by whichever thread, so C and S are
// the same bits as one thread summing every row, and a row left out by the
// sharing would stay 0 and differ.
TEST(MatmulCheck, TheReferenceOnSeveralThreadsIsTheSameBitsAsOnOne)
{
    const matmul::Shape s{131, 257, 255};
    const matmul::Inputs in = matmul::make_inputs(s, 3);
    const matmul::Reference shared = matmul::reference(s, in.a, in.b, s.m);
    matmul::Reference alone{std::vector<double>(s.m * s.n, 0.0), std::vector<double>(s.m * s.n, 0.0)};
    matmul::sum_reference_rows(s, in.a, in.b, alone, 0, s.m);
    EXPECT_TRUE(shared.c == alone.c);
    EXPECT_TRUE(shared.abs == alone.abs);
    // The first rows only, as the check of a large product takes them: the same rows.
    const matmul::Reference first = matmul::reference(s, in.a, in.b, 100);
    EXPECT_TRUE(std::equal(first.c.begin(), first.c.end(), alone.c.begin()));
    EXPECT_EQ(first.c.size(), 100 * s.n);
}

// Bad shapes are refused with a sentence, before anything runs.
TEST(MatmulCheck, RefusesBadShapes)
{
    RunRequest req = emulator_request("v1", 0, 0, "float", Schedule::Independent);
    req.shape = {0, 5, 5};
    EXPECT_THROW(matmul_lab().run(req), std::invalid_argument);
    req.shape = {70000, 70000, 1};  // M·N >= 2^32
    EXPECT_THROW(matmul_lab().run(req), std::invalid_argument);
    req.shape = {4, 4, 4};
    req.type = "int";
    EXPECT_THROW(matmul_lab().run(req), std::invalid_argument);
    req.type = "float";
    req.block = 256;  // v1's block is 32×32
    EXPECT_THROW(matmul_lab().run(req), std::invalid_argument);
}

// The lab's PTX holds each version's kernel with the tile sizes its registry
// entry names (one instance each; v8 one per tile configuration), under the
// runner's name for it, and nothing else. GPU-only versions' kernels are there
// too: the GPU trace instruments them, though the emulator refuses to run them.
TEST(MatmulPtx, HoldsEveryVersionsKernel)
{
    const wl::ptx::Module& module = lab_module<matmul::Description>();
    std::size_t instances = 0;
    for_each_version<matmul::Versions>([&](auto v) {
        matmul::for_each_instance<decltype(v)>([&](auto instance) {
            const std::string name = entry_name(matmul::kKernels, instance);
            EXPECT_NE(module.find(name), nullptr) << name;
            ++instances;
        });
        return false;
    });
    EXPECT_EQ(module.kernels().size(), instances);
    EXPECT_EQ(std::tuple_size_v<matmul::V8::tile_choices>, 3u);
    // v8's three, spelled out: 128×128 (BK 16), 128×64 (BK 16), 64×64 (BK 32);
    // not a tile size the registry does not name (BK 8).
    EXPECT_NE(module.find("warplab::matmul::matmul_warptiled<128u, 128u, 16u, 64u, 64u, 8u, 16u, 2u>"), nullptr);
    EXPECT_NE(module.find("warplab::matmul::matmul_warptiled<128u, 64u, 16u, 64u, 32u, 8u, 8u, 2u>"), nullptr);
    EXPECT_NE(module.find("warplab::matmul::matmul_warptiled<64u, 64u, 32u, 32u, 32u, 4u, 8u, 4u>"), nullptr);
    EXPECT_EQ(module.find("warplab::matmul::matmul_warptiled<128u, 128u, 8u, 64u, 64u, 8u, 16u, 2u>"), nullptr);
}

}  // namespace
}  // namespace warplab::test
