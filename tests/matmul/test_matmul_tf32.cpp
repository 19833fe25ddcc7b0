// The TF32 check (matmul v10) is tight enough to catch a wrong product and
// loose enough for TF32's own rounding, on the CPU: a TF32 product is
// computed here as the tensor cores compute it (each input cut to TF32, the
// exact products summed in FP32), then put through the lab's check.
//
// Derivation, for K = 33 and inputs uniform in [-1, 1) (S = sum_k |a_ik b_kj|
// is about 33/4 = 8): cutting an input to TF32 (10 mantissa bits) moves it by
// less than 2^-10 of itself, a product by less than 2·2^-10 + 2^-20, so C by
// less than (2^-9 + 2^-20)·S, about 0.016: within the TF32 tolerance,
// whatever the data. The FP32 tolerance at K = 33 is the worst-case
// 33·2^-24·S, about 1.6e-5 here, while the TF32 errors are of the order of
// sqrt(33)·E|ab|·2^-11, about 7e-4: far outside it, so the TF32 bound is
// needed. A product left out moves C by |a_ik b_kj|, 0.25 on average, far
// above 0.016: most elements fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "emulator/helpers.h"
#include "matmul/matmul_rounded_product.h"
#include "labs/common/make_lab.h"
#include "labs/common/lab.h"
#include "labs/matmul/run.h"
#include "labs/matmul/problem.h"

namespace warplab::test {
namespace {

// x with its 13 low mantissa bits cleared: TF32's 10-bit mantissa, cut toward zero.
float tf32_truncated(float x) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0xFFFFE000u); }

// C = A·B as the tensor cores compute it: TF32 inputs, exact products, sums in FP32.
std::vector<float> tf32_product(const matmul::Shape& s, const matmul::Inputs& in, std::size_t skip = SIZE_MAX)
{
    return rounded_product(s, in, tf32_truncated, skip);
}

TEST(MatmulTf32Check, TheTensorCoresRoundingPassesOnlyTheTf32Bound)
{
    const matmul::Shape s{67, 45, 33};
    for (std::uint64_t seed : {1, 2, 3}) {
        const matmul::Inputs in = matmul::make_inputs(s, seed);
        const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
        const std::vector<float> c = tf32_product(s, in);
        const auto tf32 = matmul::compare(c, ref.c, ref.abs, matmul::tolerance(s.k, false, matmul::Arithmetic::Tf32));
        EXPECT_TRUE(tf32.ok) << "seed " << seed << ": " << tf32.text();
        EXPECT_LT(tf32.worst_ratio, 0.5) << "the deterministic bound has room to spare";
        const auto fp32 = matmul::compare(c, ref.c, ref.abs, matmul::tolerance(s.k, false));
        EXPECT_FALSE(fp32.ok) << "TF32 rounding is far outside the FP32 bound";
        EXPECT_GT(fp32.bad, s.m * s.n / 2);
        // ||C - exact|| / ||exact||: TF32's size, thousands of times FP32's.
        const double error = matmul::relative_error(c, ref.c);
        EXPECT_GT(error, 1e-5);
        EXPECT_LT(error, 3e-3);
    }
}

TEST(MatmulTf32Check, ADroppedProductFailsTheTf32Bound)
{
    const matmul::Shape s{67, 45, 33};
    const matmul::Inputs in = matmul::make_inputs(s, 7);
    const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
    const auto cmp = matmul::compare(tf32_product(s, in, 17), ref.c, ref.abs, matmul::tolerance(s.k, false, matmul::Arithmetic::Tf32));
    EXPECT_FALSE(cmp.ok);
    EXPECT_GT(cmp.bad, s.m * s.n / 2) << cmp.text();
}

// The TF32 bound adds 2^-9 + 2^-20 to FP32's gamma, and twice FP32's when the
// reference is a float computation (cuBLAS): K = 33 gives the worst case
// 33·2^-24 for FP32.
TEST(MatmulTf32Check, ToleranceIsFp32sPlusTheInputRounding)
{
    const double u = std::ldexp(1.0, -24), inputs = std::ldexp(1.0, -9) + std::ldexp(1.0, -20);
    EXPECT_DOUBLE_EQ(matmul::tolerance(33, false).gamma, 33 * u / (1 - 33 * u));
    EXPECT_DOUBLE_EQ(matmul::tolerance(33, false, matmul::Arithmetic::Tf32).gamma, 33 * u / (1 - 33 * u) + inputs);
    EXPECT_DOUBLE_EQ(matmul::tolerance(33, true, matmul::Arithmetic::Tf32).gamma, 2 * 33 * u / (1 - 33 * u) + inputs);
}

// v11, v12, v14 and v15 are marked GPU-only in the registry, each naming its
// tensor-core instruction; every other version, v10's mma.sync included, runs
// on the emulator. The emulator refuses them with one sentence that says why,
// before anything runs (the CLI exits 2 with it).
TEST(MatmulTf32Check, TheEmulatorRefusesTheWgmmaVersionsAndSaysWhy)
{
    const Lab* lab = find_lab("matmul");
    ASSERT_NE(lab, nullptr);
    const std::vector<std::pair<std::string, std::string>> gpu_only{{"v11", "wgmma"}, {"v12", "wgmma"}, {"v14", "wgmma"}, {"v15", "wgmma"}};
    for (const VersionMeta& v : lab->versions) {
        const auto listed = std::find_if(gpu_only.begin(), gpu_only.end(), [&](const auto& g) { return g.first == v.id; });
        if (listed == gpu_only.end()) {
            EXPECT_EQ(v.gpu_only, nullptr) << v.id << " runs on the emulator";
            continue;
        }
        SCOPED_TRACE(v.id);
        ASSERT_NE(v.gpu_only, nullptr);
        EXPECT_NE(std::string(v.gpu_only).find(listed->second), std::string::npos) << v.gpu_only;
        RunRequest req;
        req.version = v.id;
        req.type = "float";
        req.shape = {17, 33, 9};
        req.backend = BackendChoice::Cpu;
        try {
            lab->run(req);
            ADD_FAILURE() << v.id << " ran on the emulator";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(std::string(v.id) + " runs only on a GPU"), std::string::npos) << what;
            EXPECT_NE(what.find("tensor-core"), std::string::npos) << what;
        }
    }
    for (const auto& [id, instruction] : gpu_only) EXPECT_NE(find_version(*lab, id), nullptr) << id << " is in the registry";
}

// v10 on the emulator: each mma.sync is a warp collective that cuts the
// operands to TF32 and sums exact products (tests/ptx/test_mma.cpp). So its C
// is tf32_product's up to the order of the float additions: within
// 2·K·2^-24·S of it (two float sums of K terms, each off by at most K·2^-24·S),
// about 3e-5 here, while a product from the wrong lane or k moves C by
// |a·b|, about 0.25. And its error against the exact product is TF32's size:
// above 1e-5, where an FP32 multiply would give about 1e-7.
TEST(MatmulTf32Check, V10OnTheEmulatorMultipliesAsTheTensorCoresDo)
{
    const matmul::Shape s{67, 45, 33};
    const matmul::Inputs in = matmul::make_inputs(s, 5);
    wl::emu::Emulator emu;
    emu.options.record = false;
    EmulatorBackend be{emu, lab_module<matmul::Description>(), matmul::kKernels, kEmulatedMultiprocessors};
    const float* a = to_device(emu, in.a);
    const float* b = to_device(emu, in.b);
    float* d_c = to_device(emu, std::vector<float>(s.m * s.n, std::numeric_limits<float>::quiet_NaN()));
    matmul::multiply_on<matmul::V10>(be, a, b, d_c, s);
    const std::vector<float> c = to_host(emu, static_cast<const float*>(d_c), s.m * s.n);
    const std::vector<float> model = tf32_product(s, in);
    const matmul::Reference ref = matmul::reference(s, in.a, in.b, s.m);
    double worst = 0;
    for (std::size_t i = 0; i < c.size(); ++i) worst = std::max(worst, std::abs(double(c[i]) - model[i]) / ref.abs[i]);
    EXPECT_LT(worst, 2 * 33 * std::ldexp(1.0, -24)) << "C against TF32 products summed in float, in units of S";
    EXPECT_GT(matmul::relative_error(c, ref.c), 1e-5);
}

}  // namespace
}  // namespace warplab::test
