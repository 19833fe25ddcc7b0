// CUDA's warp matrix functions (nvcuda::wmma, m16n16k16) as the interpreter
// runs them: wmma.load of A, B and C from global or shared memory in row- or
// column-major order with a stride, the warp's product, wmma.store of D. The
// inputs are small integers, so that every product and sum is exact in half,
// bf16 and float and D is derived by hand:
//   A[m][k] = 1 + (k == (m + 3) % 16 ? m + 1 : 0), B[k][n] = k - n, C[m][n] = 100m + n
//   D[m][n] = Σk A[m][k]·B[k][n] + C[m][n]
//           = Σk (k - n) + (m + 1)·((m + 3) % 16 - n) + 100m + n
//           = 120 - 16n + (m + 1)·((m + 3) % 16 - n) + 100m + n
// e.g. D[0][0] = 120 + 3 = 123; D[2][5] = 120 - 80 + 3·0 + 205 = 245;
// D[15][15] = 120 - 240 + 16·(2 - 15) + 1515 = 1187. All |D| < 2048: exact in half.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ptx_test_util.h"
#include "tests/fault_of.h"
#include "values.h"

namespace {

using wl::ptx::testing::compile_module;
using warplab::test::fault_of;
using wl::ptx::detail::bf16_to_float;
using wl::ptx::detail::float_to_bf16;
using wl::ptx::detail::float_to_half;
using wl::ptx::detail::half_to_float;

const char* kWmma = R"(
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// A row-major with stride lda, B column-major with stride ldb, C row-major (16), D stored column-major with stride ldd.
__global__ void strided_global(const half* A, const half* B, const float* C, float* D, int lda, int ldb, int ldd)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(a, A, lda);
    wmma::load_matrix_sync(b, B, ldb);
    wmma::load_matrix_sync(acc, C, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(D, acc, ldd, wmma::mem_col_major);
}

// A column-major, staged through shared memory by the warp; B row-major; C and D half, row-major.
__global__ void shared_half(const half* A, const half* B, const half* C, half* D)
{
    __shared__ half tile[16 * 16];
    for (int i = threadIdx.x; i < 16 * 16; i += warpSize) tile[i] = A[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
    wmma::load_matrix_sync(a, tile, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(acc, C, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// bf16 A and B, both row-major; C zero by fill_fragment, then added element-wise; D row-major float.
__global__ void bf16_rows(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, c;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(acc, a, b, acc);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
    for (int i = 0; i < acc.num_elements; i++) acc.x[i] += c.x[i];
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// Wrong: lane `skip` leaves out the product, which needs the whole warp.
__global__ void divergent(const half* A, const half* B, float* D, int skip)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    if (threadIdx.x != skip)
        wmma::mma_sync(acc, a, b, acc);  // line 61 of the kernel text
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// Wrong: only the first 8 rows of the shared tile are written before the load reads all 16.
__global__ void half_staged(const half* A, float* D)
{
    __shared__ half tile[16 * 16];
    for (int i = threadIdx.x; i < 8 * 16; i += warpSize) tile[i] = A[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::fill_fragment(b, __float2half(1.0f));
    wmma::load_matrix_sync(a, tile, 16);  // line 76 of the kernel text
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// C in half, D in float (wmma.mma's .f32.f16 form), both column-major.
__global__ void half_to_float(const half* A, const half* B, const half* C, float* D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> d;
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_col_major);
    wmma::mma_sync(d, a, b, c);
    wmma::store_matrix_sync(D, d, 16, wmma::mem_col_major);
}

// Another shape, which the emulator does not run: refused at its line.
__global__ void other_shape(const half* A, float* D)
{
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a;
    wmma::load_matrix_sync(a, A, 16);  // line 99 of the kernel text
    D[threadIdx.x] = __half2float(a.x[0]);
}

// A's tile at A + offset with stride lda, times ones: D[m][n] = the sum of row m of the tile.
__global__ void placed(const half* A, float* D, int offset, int lda)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(b, __float2half(1.0f));
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(a, A + offset, lda);  // line 111 of the kernel text
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
}

// Every warp stores its index over the same tile of D at row `row`: with two warps a race, with D too short a
// store past its end.
__global__ void same_tile(float* D, int row)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, float(threadIdx.x / warpSize));
    wmma::store_matrix_sync(D + row * 16, acc, 16, wmma::mem_row_major);  // line 122 of the kernel text
}

// Wrong: the two halves of the warp reach two different mma_sync calls (PTX's .aligned asks for one).
__global__ void split_product(const half* A, const half* B, float* D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    if (threadIdx.x < 16) {
        wmma::mma_sync(acc, a, b, acc);  // line 135 of the kernel text
        D[threadIdx.x] = acc.x[0];
    } else {
        wmma::mma_sync(acc, a, b, acc);
        wmma::store_matrix_sync(D, acc, 16, wmma::mem_row_major);
    }
}
)";

const wl::ptx::Module& module()
{
    static const wl::ptx::Module m = compile_module(kWmma, "wmma_kernels.cu");
    return m;
}

float a_value(unsigned m, unsigned k) { return 1.0f + (k == (m + 3) % 16 ? float(m + 1) : 0.0f); }
float b_value(unsigned k, unsigned n) { return float(k) - float(n); }
float c_value(unsigned m, unsigned n) { return float(100 * m + n); }
float expected(unsigned m, unsigned n)
{
    return 120.0f - 16.0f * float(n) + float(m + 1) * (float((m + 3) % 16) - float(n)) + c_value(m, n);
}

constexpr std::uint16_t kHalfNan = 0x7E00;  // fills the padding a stride skips: read by mistake, it shows

// Each test's emulator, under the schedule of its instance.
class Wmma : public ::testing::TestWithParam<wl::emu::Schedule> {
protected:
    void SetUp() override { emu.options.schedule = GetParam(); }

    // A device array of `count` elements, element i being value(i).
    template <class T, class Value> T* array(unsigned count, Value value)
    {
        T* p = emu.alloc<T>(count);
        for (unsigned i = 0; i < count; ++i) p[i] = value(i);
        return p;
    }
    // A 16×16 tile of `value(row, column)`, stored row-major (`row_major`) or column-major with `stride`, `pad` between.
    template <class T, class Value> T* tile(Value value, bool row_major, unsigned stride = 16, T pad = T())
    {
        return array<T>(16 * stride, [&](unsigned i) {
            const unsigned line = i / stride, position = i % stride;
            if (position >= 16) return pad;
            return row_major ? value(line, position) : value(position, line);
        });
    }

    wl::emu::Emulator emu;
};

auto half_of(float (*value)(unsigned, unsigned))
{
    return [value](unsigned i, unsigned j) { return float_to_half(value(i, j)); };
}

// The derivation's spot values, so that the formula itself is checked against the header's arithmetic.
TEST(WmmaExpected, SpotValues)
{
    EXPECT_EQ(expected(0, 0), 123.0f);
    EXPECT_EQ(expected(2, 5), 245.0f);
    EXPECT_EQ(expected(15, 15), 1187.0f);
}

TEST_P(Wmma, RowAndColumnMajorGlobalWithStrides)
{
    WL_SKIP_WITHOUT_NVCC();
    // unequal paddings (multiples of 16 bytes, as CUDA requires): a swapped or ignored stride moves values
    const unsigned lda = 24, ldb = 40, ldd = 20;
    auto* a = tile<std::uint16_t>(half_of(a_value), true, lda, kHalfNan);
    auto* b = tile<std::uint16_t>(half_of(b_value), false, ldb, kHalfNan);
    auto* c = tile<float>(c_value, true);
    auto* d = array<float>(16 * ldd, [](unsigned) { return -1.0f; });
    wl::ptx::launch(emu, module(), "strided_global", dim3(1), dim3(32), 0, a, b, c, d, int(lda), int(ldb), int(ldd));
    for (unsigned m = 0; m < 16; ++m)
        for (unsigned n = 0; n < 16; ++n) EXPECT_EQ(d[n * ldd + m], expected(m, n)) << "D[" << m << "][" << n << "]";
    for (unsigned n = 0; n < 16; ++n)
        for (unsigned m = 16; m < ldd; ++m) EXPECT_EQ(d[n * ldd + m], -1.0f) << "padding " << n << ", " << m;
}

TEST_P(Wmma, ColumnMajorSharedSourceAndHalfAccumulator)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* a = tile<std::uint16_t>(half_of(a_value), false);
    auto* b = tile<std::uint16_t>(half_of(b_value), true);
    auto* c = tile<std::uint16_t>(half_of(c_value), true);
    auto* d = array<std::uint16_t>(256, [](unsigned) { return kHalfNan; });
    wl::ptx::launch(emu, module(), "shared_half", dim3(1), dim3(32), 0, a, b, c, d);
    for (unsigned m = 0; m < 16; ++m)
        for (unsigned n = 0; n < 16; ++n)
            EXPECT_EQ(half_to_float(d[m * 16 + n]), expected(m, n)) << "D[" << m << "][" << n << "]";
}

TEST_P(Wmma, Bf16InputsAndElementWiseCode)
{
    WL_SKIP_WITHOUT_NVCC();
    // integers up to 17 in magnitude: exact in bf16's 8 significant bits
    auto* a = tile<std::uint16_t>([](unsigned m, unsigned k) { return float_to_bf16(a_value(m, k)); }, true);
    auto* b = tile<std::uint16_t>([](unsigned k, unsigned n) { return float_to_bf16(b_value(k, n)); }, true);
    auto* c = tile<float>(c_value, true);
    auto* d = array<float>(256, [](unsigned) { return -1.0f; });
    ASSERT_EQ(bf16_to_float(a[3]), 2.0f);  // A[0][3] = 1 + 1
    wl::ptx::launch(emu, module(), "bf16_rows", dim3(1), dim3(32), 0, a, b, c, d);
    for (unsigned m = 0; m < 16; ++m)
        for (unsigned n = 0; n < 16; ++n) EXPECT_EQ(d[m * 16 + n], expected(m, n)) << "D[" << m << "][" << n << "]";
}

TEST_P(Wmma, HalfAccumulatorInFloatOut)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* a = tile<std::uint16_t>(half_of(a_value), true);
    auto* b = tile<std::uint16_t>(half_of(b_value), true);
    auto* c = tile<std::uint16_t>(half_of(c_value), false);
    auto* d = array<float>(256, [](unsigned) { return -1.0f; });
    wl::ptx::launch(emu, module(), "half_to_float", dim3(1), dim3(32), 0, a, b, c, d);
    for (unsigned m = 0; m < 16; ++m)
        for (unsigned n = 0; n < 16; ++n) EXPECT_EQ(d[n * 16 + m], expected(m, n)) << "D[" << m << "][" << n << "]";
}

// m32n8k16 is not implemented: one line naming the instruction, at the kernel's line, not a wrong result.
TEST_P(Wmma, AnotherShapeIsRefusedAtItsLine)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* a = array<std::uint16_t>(32 * 16, [](unsigned) { return float_to_half(1.0f); });
    auto* d = array<float>(32, [](unsigned) { return -1.0f; });
    const auto f = fault_of([&] { wl::ptx::launch(emu, module(), "other_shape", dim3(1), dim3(32), 0, a, d); });
    ASSERT_TRUE(f) << "m32n8k16 ran";
    EXPECT_NE(std::string(f->what()).find("unsupported PTX instruction 'wmma.load.a.sync.aligned.row.m32n8k16"),
              std::string::npos) << f->what();
    EXPECT_EQ(f->fault.line, 99u) << f->what();
}

// CUDA asks load_matrix_sync for a 256-bit aligned pointer and a stride of a multiple of 16 bytes. A's
// element i is i % 7, so row m of the tile at A + offset sums Σj (offset + m·lda + j) % 7.
TEST_P(Wmma, APointerOrStrideOffCudasAlignmentIsAFault)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* a = array<std::uint16_t>(64 * 24, [](unsigned i) { return float_to_half(float(i % 7)); });
    auto* d = array<float>(256, [](unsigned) { return -1.0f; });
    // Right: 16 halves in is 32 bytes in; 24 halves a row is 48 bytes.
    wl::ptx::launch(emu, module(), "placed", dim3(1), dim3(32), 0, a, d, 16, 24);
    for (unsigned m = 0; m < 16; ++m) {
        float sum = 0;
        for (unsigned j = 0; j < 16; ++j) sum += float((16 + m * 24 + j) % 7);
        for (unsigned n = 0; n < 16; ++n) ASSERT_EQ(d[m * 16 + n], sum) << m << ", " << n;
    }
    EXPECT_EQ(d[0], 47.0f);  // row 0: 16..31 mod 7 = 2,3,4,5,6,0,1 twice (42) and 2, 3: 47
    const struct {
        int offset, lda;
        const char* says;
    } wrong[] = {{0, 20, "with a stride of 20 elements of 2 bytes: it must be a multiple of 16 bytes"},
                 {8, 16, "at an address 16 bytes past a 32-byte boundary"}};
    for (const auto& w : wrong) {
        const auto f = fault_of([&] { wl::ptx::launch(emu, module(), "placed", dim3(1), dim3(32), 0, a, d, w.offset, w.lda); });
        ASSERT_TRUE(f) << "offset " << w.offset << ", lda " << w.lda << " ran";
        EXPECT_NE(std::string(f->what()).find(w.says), std::string::npos) << f->what();
        EXPECT_EQ(f->fault.line, 111u) << f->what();
    }
}

// A store goes through the emulator's checked accesses: past the end of D, or racing another warp's.
TEST_P(Wmma, StoresAreCheckedForBoundsAndRaces)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* d = array<float>(16 * 16 + 8, [](unsigned) { return -1.0f; });  // rows 0..15 and half a row
    wl::ptx::launch(emu, module(), "same_tile", dim3(1), dim3(32), 0, d, 0);  // right: one warp, rows 0..15
    for (unsigned i = 0; i < 256; ++i) ASSERT_EQ(d[i], 0.0f) << i;
    EXPECT_EQ(d[256], -1.0f);
    auto store_fault = [&](unsigned threads, int row) {
        const auto f = fault_of([&] { wl::ptx::launch(emu, module(), "same_tile", dim3(1), dim3(threads), 0, d, row); });
        if (!f) return std::string("no fault");
        EXPECT_EQ(f->fault.line, 122u) << f->what();
        return std::string(f->what());
    };
    // rows 1..16: lane 31 holds row 16's second half, at (16·16 + 8)·4 = byte 1056, D's end
    const std::string past_end = store_fault(32, 1);
    EXPECT_NE(past_end.find("out-of-bounds store"), std::string::npos) << past_end;
    EXPECT_NE(past_end.find("(byte 1056 of 1056)"), std::string::npos) << past_end;
    const std::string race = store_fault(64, 0);
    EXPECT_NE(race.find("race"), std::string::npos) << race;
}

// Half the warp at one mma_sync, half at another: a fault naming the two lanes, at lane 0's call, not a
// product of the two halves' fragments.
TEST_P(Wmma, TwoCallsForOneWarpAreAFault)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* ones = array<std::uint16_t>(256, [](unsigned) { return float_to_half(1.0f); });
    auto* d = array<float>(256, [](unsigned) { return -1.0f; });
    const auto f = fault_of([&] { wl::ptx::launch(emu, module(), "split_product", dim3(1), dim3(32), 0, ones, ones, d); });
    ASSERT_TRUE(f) << "two mma_sync calls made one product";
    EXPECT_NE(std::string(f->what()).find("lane 0 and lane 16 of the warp reached different wmma.mma instructions"),
              std::string::npos) << f->what();
    EXPECT_EQ(f->fault.line, 135u) << f->what();
}

// One lane skips mma_sync: the other 31 wait at it for a lane that never comes. The launch stops with a
// fault at the product's line instead of hanging, whichever lane skips.
TEST_P(Wmma, ALaneThatSkipsTheProductIsAFaultAtItsLine)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* ones = array<std::uint16_t>(256, [](unsigned) { return float_to_half(1.0f); });
    auto* d = array<float>(256, [](unsigned) { return -1.0f; });
    for (int skip : {0, 5, 31}) {
        const auto f = fault_of([&] { wl::ptx::launch(emu, module(), "divergent", dim3(1), dim3(32), 0, ones, ones, d, skip); });
        ASSERT_TRUE(f) << "lane " << skip << " skipped mma_sync unnoticed";
        const std::string what = f->what();
        EXPECT_NE(what.find("wmma.mma.sync"), std::string::npos) << what;
        EXPECT_EQ(f->fault.line, 61u) << what;
    }
    // The same kernel with no lane skipping (32 is no lane) is right: D = 16 ones times 16 ones everywhere.
    wl::ptx::launch(emu, module(), "divergent", dim3(1), dim3(32), 0, ones, ones, d, 32);
    for (unsigned i = 0; i < 256; ++i) ASSERT_EQ(d[i], 16.0f) << i;
}

// A load of shared memory that the warp never wrote is the emulator's uninitialised-read fault, at the load.
TEST_P(Wmma, ALoadOfUnwrittenSharedMemoryIsAFault)
{
    WL_SKIP_WITHOUT_NVCC();
    auto* a = array<std::uint16_t>(256, [](unsigned) { return float_to_half(1.0f); });
    auto* d = array<float>(256, [](unsigned) { return -1.0f; });
    const auto f = fault_of([&] { wl::ptx::launch(emu, module(), "half_staged", dim3(1), dim3(32), 0, a, d); });
    ASSERT_TRUE(f) << "rows 8..15 of the tile were read unwritten unnoticed";
    EXPECT_EQ(f->fault.line, 76u) << f->what();
    EXPECT_NE(std::string(f->what()).find("tile[128]"), std::string::npos) << f->what();
}

INSTANTIATE_TEST_SUITE_P(Schedules, Wmma, ::testing::Values(wl::emu::Schedule::Independent, wl::emu::Schedule::Lockstep),
                         [](const auto& info) { return std::string(wl::emu::to_string(info.param)); });

}  // namespace
