// mma.sync.m16n8k8 in TF32 (matmul v10's tensor-core instruction) as the
// interpreter runs it: a warp collective whose 32 lanes each bring their
// pieces of A, B and C and take their piece of D, in the fragment layout of
// the PTX ISA ("Matrix Fragments for mma.m16n8k8", .tf32): lane l = 4·g + t
// holds A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4]; B[t][g],
// B[t + 4][g]; and C (and D) [g][2t], [g][2t + 1], [g + 8][2t], [g + 8][2t + 1].
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ptx_test_util.h"

namespace {

using wl::ptx::testing::compile_module;

// One 16×8×8 piece: each lane gathers its fragments from row-major A (16×8),
// B (8×8, B[k][n]) and C (16×8), multiplies, and scatters its piece of D.
const char* kMma = R"(
__global__ void mma_piece(const float* A, const float* B, const float* C, float* D)
{
    const unsigned lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const unsigned a0 = __float_as_uint(A[g * 8 + t]), a1 = __float_as_uint(A[(g + 8) * 8 + t]);
    const unsigned a2 = __float_as_uint(A[g * 8 + t + 4]), a3 = __float_as_uint(A[(g + 8) * 8 + t + 4]);
    const unsigned b0 = __float_as_uint(B[t * 8 + g]), b1 = __float_as_uint(B[(t + 4) * 8 + g]);
    float d0 = C[g * 8 + 2 * t], d1 = C[g * 8 + 2 * t + 1], d2 = C[(g + 8) * 8 + 2 * t], d3 = C[(g + 8) * 8 + 2 * t + 1];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    D[g * 8 + 2 * t] = d0, D[g * 8 + 2 * t + 1] = d1, D[(g + 8) * 8 + 2 * t] = d2, D[(g + 8) * 8 + 2 * t + 1] = d3;
}
)";

// D for A (16×8), B (8×8) and C (16×8), all row-major, from one block of
// `threads` threads running mma_piece under `schedule`.
std::vector<float> multiply_piece(wl::emu::Schedule schedule, const std::vector<float>& a, const std::vector<float>& b,
                                  const std::vector<float>& c, unsigned threads = 32)
{
    static const wl::ptx::Module m = compile_module(kMma);
    wl::emu::Emulator emu;
    emu.options.schedule = schedule;
    auto device = [&](const std::vector<float>& host) {
        float* d = emu.alloc<float>(host.size());
        std::copy(host.begin(), host.end(), d);
        return d;
    };
    float* d = device(std::vector<float>(16 * 8, -1.0f));
    wl::ptx::launch(emu, m, "mma_piece", dim3(1), dim3(threads), 0, device(a), device(b), device(c), d);
    return std::vector<float>(d, d + 16 * 8);
}

class Mma : public ::testing::TestWithParam<wl::emu::Schedule> {};

// Row i of A has one non-zero, i + 1 at column i % 8; B[k][n] = 10k + n; C = 1000.
// So D[i][n] = (i + 1)·B[i % 8][n] + 1000 = (i + 1)·(10·(i % 8) + n) + 1000,
// e.g. D[9][3] = 10·(10 + 3) + 1000 = 1130 and D[15][7] = 16·77 + 1000 = 2232.
// Every value is an integer below 2^11: exact in TF32 and in float. A lane
// that brought the wrong element, or took the wrong piece of D, moves a value.
TEST_P(Mma, EachLaneBringsAndTakesItsPieceOfThePtxLayout)
{
    WL_SKIP_WITHOUT_NVCC();
    std::vector<float> a(16 * 8), b(8 * 8);
    for (unsigned i = 0; i < 16; ++i)
        for (unsigned k = 0; k < 8; ++k) a[i * 8 + k] = k == i % 8 ? float(i + 1) : 0.0f;
    for (unsigned k = 0; k < 8; ++k)
        for (unsigned n = 0; n < 8; ++n) b[k * 8 + n] = float(10 * k + n);
    const std::vector<float> d = multiply_piece(GetParam(), a, b, std::vector<float>(16 * 8, 1000.0f));
    for (unsigned i = 0; i < 16; ++i)
        for (unsigned n = 0; n < 8; ++n)
            EXPECT_EQ(d[i * 8 + n], float((i + 1) * (10 * (i % 8) + n) + 1000)) << "D[" << i << "][" << n << "]";
    EXPECT_EQ(d[9 * 8 + 3], 1130.0f);
    EXPECT_EQ(d[15 * 8 + 7], 2232.0f);
}

// The tensor cores read a TF32 operand's top 19 bits: 1 + 2^-12 needs the
// 12th mantissa bit, TF32 keeps 10, so it counts as 1. With every A = 1 + 2^-12,
// B = 1 and C = 0, D = 8 exactly; FP32 multiply-adds would give 8 + 8·2^-12.
TEST_P(Mma, OperandsAreCutToTf32)
{
    WL_SKIP_WITHOUT_NVCC();
    const std::vector<float> d = multiply_piece(GetParam(), std::vector<float>(16 * 8, 1.0f + std::ldexp(1.0f, -12)),
                                                std::vector<float>(8 * 8, 1.0f), std::vector<float>(16 * 8, 0.0f));
    for (unsigned i = 0; i < 16 * 8; ++i) ASSERT_EQ(d[i], 8.0f) << i;
}

INSTANTIATE_TEST_SUITE_P(Schedules, Mma, ::testing::Values(wl::emu::Schedule::Independent, wl::emu::Schedule::Lockstep),
                         [](const auto& info) {
                             return std::string(info.param == wl::emu::Schedule::Lockstep ? "Lockstep" : "Independent");
                         });

// mma.sync.aligned needs the whole warp; a block of 16 threads has half of
// one. The launch stops with a one-line fault that names the instruction and
// the lanes it waits for, instead of hanging.
TEST(MmaFaults, APartialWarpIsReportedNotAHang)
{
    WL_SKIP_WITHOUT_NVCC();
    try {
        multiply_piece(wl::emu::Schedule::Independent, std::vector<float>(16 * 8), std::vector<float>(8 * 8),
                       std::vector<float>(16 * 8), 16);
        ADD_FAILURE() << "half a warp ran mma.sync";
    } catch (const std::exception& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("mma.sync"), std::string::npos) << what;
        EXPECT_NE(what.find("0xffff0000"), std::string::npos) << what;
    }
}

}  // namespace
