// The interpreter on small CUDA kernels compiled by nvcc: arithmetic and
// rounding corner cases against values derived by hand, divergence, calls,
// local arrays, atomics, printf and assert. Inputs come from memory so that
// nvcc cannot fold the operations away.
#include <climits>
#include <cmath>
#include <cstring>

#include "ptx_test_util.h"
#include "tests/fault_of.h"

namespace {

using warplab::test::fault_of;
using wl::ptx::testing::compile_module;

template <class T> T* upload(wl::emu::Emulator& emu, std::initializer_list<T> values)
{
    T* p = emu.alloc<T>(values.size());
    std::copy(values.begin(), values.end(), p);
    return p;
}

std::uint32_t float_bits(float f)
{
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

const char* kInteger = R"(
__global__ void integer_ops(const int* in, long long* out)
{
    int a = in[0], b = in[1], c = in[2];      // -7, 2, 0x11223344
    unsigned ua = in[3], ub = in[4];          // 0xFFFFFFFF, 0x80000000
    out[0] = a / b;                           // -3 (truncates toward zero)
    out[1] = a % b;                           // -1
    out[2] = __umulhi(ua, 2u);                // 1
    out[3] = __mulhi(a, 0x40000000);          // floor(-7 * 2^30 / 2^32) = -2
    out[4] = __popc(c);                       // 0x11223344: nibbles 1,1,2,2,3,3,4,4 have 1,1,1,1,2,2,1,1 bits: 10
    out[5] = __clz(b);                        // 2 = 0b10: 30 leading zeros
    out[6] = __brev(1u << b);                 // bit 2 -> bit 29
    out[7] = __ffs(ub);                       // 32
    out[8] = __byte_perm(c, 0x55667788, 0x0123);  // bytes 3,2,1,0 of c reversed: 0x44332211
    out[9] = __funnelshift_l(ub, 1u, 1);      // (1:0x80000000) << 1, high word: 3
    out[10] = a >> 1;                         // arithmetic: -4
    out[11] = ua >> 31;                       // 1
    out[12] = min(a, b) + max(ua, ub);        // -7 + 0xFFFFFFFF as unsigned: 0xFFFFFFF8
    out[13] = (long long)a * 3000000000LL;    // -21000000000
    out[14] = (unsigned long long)ua * ua;    // 0xFFFFFFFE00000001
    out[15] = __sad(a, b, 10u);               // |-7 - 2| + 10 = 19
    out[16] = (signed char)(c);               // 0x44 = 68
    out[17] = (short)(ub >> 16);              // 0x8000 as short: -32768
    out[18] = __usad(ua, 1u, 0u);             // 0xFFFFFFFE
    out[19] = __brevll(1ull);                 // bit 0 -> bit 63
}
)";

TEST(PtxInstructions, IntegerOperations)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kInteger);
    wl::emu::Emulator emu;
    const int* in = upload<int>(emu, {-7, 2, 0x11223344, -1, INT_MIN});
    long long* out = emu.alloc<long long>(20);
    wl::ptx::launch(emu, m, "integer_ops", dim3(1), dim3(1), 0, in, out);
    const long long expect[20] = {-3, -1, 1, -2, 10, 30, 1 << 29, 32, 0x44332211, 3, -4, 1, 0xFFFFFFF8LL, -21000000000LL,
                                  static_cast<long long>(0xFFFFFFFE00000001ULL), 19, 68, -32768, 0xFFFFFFFELL,
                                  static_cast<long long>(0x8000000000000000ULL)};
    for (int i = 0; i < 20; ++i) EXPECT_EQ(out[i], expect[i]) << "out[" << i << "]";
}

// bmsk (cub's bit masks: thrust::sort, cub::BlockRadixSort), as inline PTX:
// each pair (position a, width b) through .clamp and through .wrap.
const char* kBitMasks = R"(
__global__ void bit_masks(const unsigned* pos, const unsigned* width, unsigned* clamped, unsigned* wrapped, int n)
{
    for (int i = 0; i < n; ++i) {
        asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(clamped[i]) : "r"(pos[i]), "r"(width[i]));
        asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(wrapped[i]) : "r"(pos[i]), "r"(width[i]));
    }
}
)";

TEST(PtxInstructions, BitMaskClampAndWrap)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kBitMasks);
    wl::emu::Emulator emu;
    const unsigned* pos = upload<unsigned>(emu, {1, 4, 28, 0, 32, 33, 5, 0, 31});
    const unsigned* width = upload<unsigned>(emu, {2, 8, 8, 32, 4, 4, 0, 31, 1});
    unsigned* clamped = emu.alloc<unsigned>(9);
    unsigned* wrapped = emu.alloc<unsigned>(9);
    wl::ptx::launch(emu, m, "bit_masks", dim3(1), dim3(1), 0, pos, width, clamped, wrapped, 9);
    // The PTX ISA: mask0 = ~0 << (a & 31), cleared by .clamp where a >= 32; the bits
    // from (a & 31) + (b & 31) up are cleared, unless that sum is 32 or more, or
    // (.clamp) a or b is 32 or more, when none are; a width b & 31 of 0 gives 0.
    //   (1,2): bits 1..2, 0x6 both (the ISA's own example).   (4,8): bits 4..11, 0xFF0 both.
    //   (28,8): the sum 36 runs past bit 31: bits 28..31, 0xF0000000 both.
    //   (0,32): .clamp takes the width to 32, all ones; .wrap takes it to 0, no bits.
    //   (32,4): .clamp: the position past bit 31 gives 0; .wrap: (0,4), 0xF.
    //   (33,4): .clamp 0; .wrap (1,4): bits 1..4, 0x1E.   (5,0): no width, 0 both.
    //   (0,31): bits 0..30, 0x7FFFFFFF both.   (31,1): the sum 32: bit 31 alone, 0x80000000 both.
    const unsigned expect_clamp[9] = {0x6, 0xFF0, 0xF0000000, 0xFFFFFFFF, 0, 0, 0, 0x7FFFFFFF, 0x80000000};
    const unsigned expect_wrap[9] = {0x6, 0xFF0, 0xF0000000, 0, 0xF, 0x1E, 0, 0x7FFFFFFF, 0x80000000};
    for (int i = 0; i < 9; ++i) {
        EXPECT_EQ(clamped[i], expect_clamp[i]) << "bmsk.clamp " << pos[i] << ", " << width[i];
        EXPECT_EQ(wrapped[i], expect_wrap[i]) << "bmsk.wrap " << pos[i] << ", " << width[i];
    }
}

const char* kFloat = R"(
#include <cuda_fp16.h>
__global__ void float_ops(const float* in, const double* din, unsigned* out)
{
    float one = in[0], tiny = in[1], third = in[2], big = in[3], nan = in[4], x = in[5];  // 1, 2^-24, 1/3, 1e10, NaN, 2.5
    out[0] = __float_as_uint(__fadd_rn(one, tiny));   // tie: to even, 1.0
    out[1] = __float_as_uint(__fadd_ru(one, tiny));   // up: 1 + 2^-23
    out[2] = __float_as_uint(__fadd_rz(-one, -tiny)); // toward zero: -1.0
    out[3] = __float_as_uint(__fadd_rd(-one, -tiny)); // down: -(1 + 2^-23)
    out[4] = __float2int_rn(x);                       // 2 (tie to even)
    out[5] = __float2int_rn(x + one);                 // 4
    out[6] = __float2int_rz(-x - 0.2f);               // -2
    out[7] = __float2int_rd(-x + 0.4f);               // -3
    out[8] = __float2int_ru(x - 0.4f);                // 3
    out[9] = (int)big;                                // saturates: INT_MAX
    out[10] = (unsigned)(-x);                         // saturates: 0
    out[11] = __float2int_rn(nan);                    // 0
    out[12] = __float_as_uint(__int2float_rz(16777217)); // 2^24 + 1 -> 2^24
    out[13] = __float_as_uint(__int2float_ru(16777217)); // -> 2^24 + 2
    out[14] = __float_as_uint(fmaf(one + 2 * 5.9604645e-8f * in[0], one - 2 * 5.9604645e-8f * in[0], -one)); // (1+e)(1-e)-1 = -e^2 = -2^-46
    out[15] = __float_as_uint(__saturatef(x));        // 1.0
    out[16] = __half_as_ushort(__float2half(0.1f));   // 0x2E66
    out[17] = __float_as_uint(__half2float(__hadd(__float2half(one), __float2half(x)))); // 3.5
    out[18] = __float_as_uint(sqrtf(x * 0.8f));       // sqrt(2) rounded: 0x3FB504F3
    out[19] = __float_as_uint((float)(din[0] / din[1]));  // 1/3 in double, rounded to float: same as 1/3f
    out[20] = third < nan || third >= nan;            // ordered comparisons with NaN: false
    out[21] = !(third == nan);                        // unordered "not equal": true
    out[22] = __float_as_uint(fminf(nan, x));         // the number: 2.5
    out[23] = __float_as_uint(-x);                    // sign flip
}
)";

TEST(PtxInstructions, FloatRoundingAndConversions)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kFloat);
    wl::emu::Emulator emu;
    const float* in = upload<float>(emu, {1.0f, 5.9604645e-8f, 1.0f / 3.0f, 1e10f, NAN, 2.5f});
    const double* din = upload<double>(emu, {1.0, 3.0});
    unsigned* out = emu.alloc<unsigned>(24);
    wl::ptx::launch(emu, m, "float_ops", dim3(1), dim3(1), 0, in, din, out);
    const unsigned expect[24] = {0x3F800000, 0x3F800001, 0xBF800000, 0xBF800001, 2, 4, static_cast<unsigned>(-2),
                                 static_cast<unsigned>(-3), 3, INT_MAX, 0, 0, 0x4B800000, 0x4B800001,
                                 float_bits(-std::ldexp(1.0f, -46)), 0x3F800000, 0x2E66, float_bits(3.5f), 0x3FB504F3,
                                 float_bits(1.0f / 3.0f), 0, 1, float_bits(2.5f), float_bits(-2.5f)};
    for (int i = 0; i < 24; ++i) EXPECT_EQ(out[i], expect[i]) << "out[" << i << "]";
}

// testp, written as inline PTX (nvcc itself tests classes with other instructions):
// each value's classes as bits, 1 finite, 2 infinite, 4 number, 8 notanumber, 16 normal, 32 subnormal.
const char* kClasses = R"(
__device__ unsigned classes(float x)
{
    unsigned f, i, n, nan, nor, sub;
    asm("{ .reg .pred p; testp.finite.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(f) : "f"(x));
    asm("{ .reg .pred p; testp.infinite.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(i) : "f"(x));
    asm("{ .reg .pred p; testp.number.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(n) : "f"(x));
    asm("{ .reg .pred p; testp.notanumber.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(nan) : "f"(x));
    asm("{ .reg .pred p; testp.normal.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(nor) : "f"(x));
    asm("{ .reg .pred p; testp.subnormal.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(sub) : "f"(x));
    return f | i << 1 | n << 2 | nan << 3 | nor << 4 | sub << 5;
}
__global__ void float_classes(const float* in, const double* din, unsigned* out, int n)
{
    for (int k = 0; k < n; ++k) out[k] = classes(in[k]);
    unsigned sub;
    asm("{ .reg .pred p; testp.subnormal.f64 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(sub) : "d"(din[0]));
    out[n] = sub;
}
)";

TEST(PtxInstructions, TestpClassesDecodedAtLoad)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kClasses);
    wl::emu::Emulator emu;
    const float* in = upload<float>(emu, {1.0f, INFINITY, NAN, 1e-40f, 0.0f, -INFINITY, -2.5f});
    const double* din = upload<double>(emu, {1e-310});
    unsigned* out = emu.alloc<unsigned>(8);
    wl::ptx::launch(emu, m, "float_classes", dim3(1), dim3(1), 0, in, din, out, 7);
    // 1.0: finite, number, normal = 1 + 4 + 16; infinity: infinite, number = 2 + 4; NaN: notanumber = 8;
    // 1e-40 (below 2^-126): finite, number, subnormal = 1 + 4 + 32; 0: finite, number (neither normal
    // nor subnormal) = 5; -infinity: 6; -2.5: 21. 1e-310 as a double is below 2^-1022: subnormal, 1.
    const unsigned expect[8] = {21, 6, 8, 37, 5, 6, 21, 1};
    for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], expect[i]) << "out[" << i << "]";
}

const char* kControl = R"(
#include <cstdio>
#include <cassert>
__device__ __noinline__ int factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }
struct Pair { int lo, hi; };
__device__ __noinline__ Pair split(long long v) { return Pair{(int)v, (int)(v >> 32)}; }
__device__ __noinline__ void bump(float* p, float by) { *p += by; }   // generic pointer: shared or global

__global__ void control(const int* in, int* out, float* g)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    // divergence: each third of the threads takes another path, loops run t % 5 times
    int v = 0;
    if (t % 3 == 0) v = 100;
    else if (t % 3 == 1) v = -t;
    else for (int k = 0; k < t % 5; ++k) v += k;
    out[t] = v;
    // a local array indexed by a runtime value
    int local[16];
    for (int k = 0; k < 16; ++k) local[k] = k * in[0];
    out[64 + t] = local[(t + in[1]) % 16];
    // calls: recursion and a struct return
    out[128 + t] = factorial(t % 8);
    Pair p = split(((long long)t << 32) | 5);
    out[192 + t] = p.lo + p.hi;
    s[t] = t;
    __syncthreads();
    bump(&s[t], 0.5f);
    bump(&g[t], s[t]);
    if (t == 0) printf("t=%d v=%d f=%.2f s=%s u=%u ll=%lld\n", t, v, 1.5, "hi", 7u, -5ll);
}

__global__ void asserts(const int* in) { assert(in[threadIdx.x] < 3); }
__global__ void greet(int v) { if (threadIdx.x % 32 == 1) printf("v=%d tid=%u\n", v, threadIdx.x); }
__global__ void traps() { __trap(); }
)";

TEST(PtxInstructions, DivergenceLocalArraysCallsAndPrintf)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kControl, "control.cu");
    wl::emu::Emulator emu;
    const int* in = upload<int>(emu, {3, 5});
    int* out = emu.alloc<int>(256);
    float* g = emu.alloc<float>(64);
    for (int i = 0; i < 64; ++i) g[i] = 1.0f;
    ::testing::internal::CaptureStdout();
    wl::ptx::launch(emu, m, "control", dim3(1), dim3(64), 0, in, out, g);
    const std::string printed = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(printed, "t=0 v=100 f=1.50 s=hi u=7 ll=-5\n");
    const int fact[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
    for (int t = 0; t < 64; ++t) {
        int v = 0;
        if (t % 3 == 0) v = 100;
        else if (t % 3 == 1) v = -t;
        else for (int k = 0; k < t % 5; ++k) v += k;
        EXPECT_EQ(out[t], v) << t;
        EXPECT_EQ(out[64 + t], ((t + 5) % 16) * 3) << t;
        EXPECT_EQ(out[128 + t], fact[t % 8]) << t;
        EXPECT_EQ(out[192 + t], 5 + t) << t;
        EXPECT_EQ(g[t], 1.0f + t + 0.5f) << t;
    }
    // bump() through a generic pointer: its shared accesses are recorded as shared, its global ones as global
    bool shared_rmw = false, global_rmw = false;
    for (const auto& r : emu.take_records()) {
        if (r.kind != wl::trace::Kind::Store || r.thread != 3) continue;
        if (r.space == wl::trace::Space::Shared && r.offset == 12) shared_rmw = true;
        if (r.space == wl::trace::Space::Global && r.array == 2 && r.offset == 12 + reinterpret_cast<std::uintptr_t>(g) % 256) global_rmw = true;
    }
    EXPECT_TRUE(shared_rmw);
    EXPECT_TRUE(global_rmw);
}

// No device-function calls (vprintf is the runtime's): these lanes run without fibers.
TEST(PtxInstructions, PrintfFromAKernelWithoutCalls)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kControl, "control.cu");
    wl::emu::Emulator emu;
    ::testing::internal::CaptureStdout();
    wl::ptx::launch(emu, m, "greet", dim3(1), dim3(64), 0, 42);
    const std::string printed = ::testing::internal::GetCapturedStdout();
    // lanes 1 and 33 print, in an order the schedule picks
    EXPECT_TRUE(printed == "v=42 tid=1\nv=42 tid=33\n" || printed == "v=42 tid=33\nv=42 tid=1\n") << printed;
}

TEST(PtxInstructions, AssertAndTrapAreKernelFaults)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kControl, "control.cu");
    wl::emu::Emulator emu;
    const int* in = upload<int>(emu, {0, 1, 2, 7});
    const auto f = fault_of([&] { wl::ptx::launch(emu, m, "asserts", dim3(1), dim3(4), 0, in); });
    ASSERT_TRUE(f);
    EXPECT_NE(std::string(f->what()).find("assertion failed: in[threadIdx.x] < 3"), std::string::npos) << f->what();
    EXPECT_EQ(f->fault.thread.x, 3u);
    EXPECT_EQ(f->fault.file, "control.cu");
    wl::ptx::launch(emu, m, "asserts", dim3(1), dim3(3), 0, in);  // all below 3: fine
    EXPECT_THROW(wl::ptx::launch(emu, m, "traps", dim3(1), dim3(1), 0), wl::emu::KernelFault);
}

const char* kAtomics = R"(
__global__ void atomics(int* i, unsigned* u, float* f, double* d, unsigned long long* ull, int* out)
{
    __shared__ int s;
    int t = threadIdx.x;
    if (t == 0) s = 0;
    __syncthreads();
    atomicAdd(&i[0], t);            // sum of 0..N-1
    atomicMin(&i[1], 50 - t);       // 50 - (N-1)
    atomicMax(&i[2], t - 7);        // N - 8
    atomicMax(&u[0], (unsigned)t);  // N - 1
    atomicAnd(&u[1], ~(1u << (t % 32)));
    atomicOr(&u[2], 1u << (t % 32));
    atomicXor(&u[3], 1u << (t % 4));
    atomicInc(&u[4], 9u);           // wraps at 9: N increments from 0 -> N % 10
    atomicDec(&u[5], 9u);
    atomicAdd(&f[0], 0.5f);
    atomicAdd(&d[0], 0.25);
    atomicAdd(&ull[0], 1ull << 33);
    atomicCAS(&i[3], t, t + 1);     // thread k succeeds when i[3] == k: the chain runs up as far as the order allows
    atomicExch(&i[4], 42);
    atomicAdd(&s, 2);
    __threadfence();                // membar.gl: nothing to order on the emulator, but it must run
    __threadfence_block();
    __syncthreads();
    if (t == 0) out[0] = s;
}
)";

TEST(PtxInstructions, AtomicsOnGlobalAndShared)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kAtomics);
    wl::emu::Emulator emu;
    const unsigned n = 96;  // three warps
    int* i = upload<int>(emu, {0, INT_MAX, INT_MIN, 0, 0});
    unsigned* u = upload<unsigned>(emu, {0, ~0u, 0, 0, 0, 0});
    float* f = upload<float>(emu, {0.0f});
    double* d = upload<double>(emu, {0.0});
    unsigned long long* ull = upload<unsigned long long>(emu, {0});
    int* out = emu.alloc<int>(1);
    wl::ptx::launch(emu, m, "atomics", dim3(1), dim3(n), 0, i, u, f, d, ull, out);
    EXPECT_EQ(i[0], static_cast<int>(n * (n - 1) / 2));
    EXPECT_EQ(i[1], 50 - static_cast<int>(n - 1));
    EXPECT_EQ(i[2], static_cast<int>(n) - 8);
    EXPECT_GE(i[3], 1);  // at least thread 0's CAS succeeds
    EXPECT_EQ(i[4], 42);
    EXPECT_EQ(u[0], n - 1);
    EXPECT_EQ(u[1], 0u);
    EXPECT_EQ(u[2], ~0u);
    EXPECT_EQ(u[3], 0u);  // each of the 4 bits flipped 24 times
    EXPECT_EQ(u[4], n % 10);
    // dec: 0 -> 9 (wraps), then 8, 7, ..., each of the n steps moves down one in a cycle of 10
    EXPECT_EQ(u[5], (10 - n % 10) % 10);
    EXPECT_EQ(f[0], 0.5f * n);
    EXPECT_EQ(d[0], 0.25 * n);
    EXPECT_EQ(ull[0], (1ull << 33) * n);
    EXPECT_EQ(out[0], static_cast<int>(2 * n));
}

}  // namespace

namespace {

const char* kAsyncAndSymbols = R"(
#include <cuda_pipeline.h>
__constant__ float coeffs[4];
namespace ns { __device__ int counter; }

// cp.async through the pipeline primitives: the copy is complete after the wait
__global__ void copy_async(const float4* g, float* out)
{
    __shared__ float4 s[32];
    __pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[threadIdx.x] = s[31 - threadIdx.x].y;
}

__global__ void constants(float* out)
{
    out[threadIdx.x] = coeffs[threadIdx.x % 4];
    atomicAdd(&ns::counter, 1);
}
)";

TEST(PtxInstructions, CpAsyncCopiesAndRecordsALoadAndAStore)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kAsyncAndSymbols);
    wl::emu::Emulator emu;
    float* g = emu.alloc<float>(128);
    for (int i = 0; i < 128; ++i) g[i] = static_cast<float>(i);
    float* out = emu.alloc<float>(32);
    wl::ptx::launch(emu, m, "copy_async", dim3(1), dim3(32), 0, g, out);
    for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], static_cast<float>((31 - t) * 4 + 1)) << t;  // .y of float4 31 - t
    unsigned loads16 = 0, stores16 = 0;
    for (const auto& r : emu.take_records()) {
        loads16 += r.kind == wl::trace::Kind::Load && r.space == wl::trace::Space::Global && r.size == 16;
        stores16 += r.kind == wl::trace::Kind::Store && r.space == wl::trace::Space::Shared && r.size == 16;
    }
    EXPECT_EQ(loads16, 32u);
    EXPECT_EQ(stores16, 32u);
}

TEST(PtxInstructions, ConstantAndDeviceVariablesThroughSymbol)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kAsyncAndSymbols);
    auto coeffs = m.symbol("coeffs");
    ASSERT_EQ(coeffs.size(), 16u);
    const float values[4] = {0.5f, -1.0f, 2.0f, 8.0f};
    std::memcpy(coeffs.data(), values, sizeof values);
    auto counter = m.symbol("ns::counter");
    ASSERT_EQ(counter.size(), 4u);
    std::memset(counter.data(), 0, 4);
    EXPECT_TRUE(m.symbol("nothing_of_that_name").empty());
    wl::emu::Emulator emu;
    float* out = emu.alloc<float>(40);
    wl::ptx::launch(emu, m, "constants", dim3(1), dim3(40), 0, out);
    for (int t = 0; t < 40; ++t) EXPECT_EQ(out[t], values[t % 4]) << t;
    int count;
    std::memcpy(&count, counter.data(), 4);
    EXPECT_EQ(count, 40);
}

}  // namespace

namespace {

const char* kWide = R"(
#include <cuda_fp16.h>
// 128-bit multiply-add (mul.hi, add.cc, addc) and a half2 built from two floats (cvt.rn.f16x2.f32)
__global__ void wide(const unsigned long long* w, unsigned long long* out, const float* f, __half2* h)
{
    const unsigned t = threadIdx.x;
    unsigned __int128 x = (unsigned __int128)w[3 * t] * w[3 * t + 1] + w[3 * t + 2];
    out[2 * t] = (unsigned long long)(x >> 64);
    out[2 * t + 1] = (unsigned long long)x;
    unsigned __int128 y = (unsigned __int128)w[3 * t] - w[3 * t + 1];  // borrows when w0 < w1
    out[4 + t] = (unsigned long long)(y >> 64);
    if (t == 0) h[0] = __floats2half2_rn(f[0], f[1]);
}
)";

TEST(PtxInstructions, CarryChainsAndHalfPairs)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kWide);
    wl::emu::Emulator emu;
    const unsigned long long* w = upload<unsigned long long>(
        emu, {~0ull, ~0ull, 5ull, 3ull, 0x5555555555555556ull, ~0ull});
    unsigned long long* out = emu.alloc<unsigned long long>(6);
    const float* f = upload<float>(emu, {1.0f, -2.0f});
    unsigned* h = emu.alloc<unsigned>(1);
    wl::ptx::launch(emu, m, "wide", dim3(1), dim3(2), 0, w, out, f, h);
    // (2^64 - 1)^2 + 5 = 2^128 - 2^65 + 6: high 2^64 - 2, low 6
    EXPECT_EQ(out[0], 0xFFFFFFFFFFFFFFFEull);
    EXPECT_EQ(out[1], 6ull);
    // 3 * 0x5555555555555556 = 2^64 + 2; + (2^64 - 1) carries into the high word: 2, low 1
    EXPECT_EQ(out[2], 2ull);
    EXPECT_EQ(out[3], 1ull);
    EXPECT_EQ(out[4], 0ull);   // 2^64 - 1 minus itself: no borrow
    EXPECT_EQ(out[5], ~0ull);  // 3 minus a larger number: the borrow fills the high word
    EXPECT_EQ(*h, 0xC0003C00u);  // low half 1.0 (0x3C00), high half -2.0 (0xC000)
}

}  // namespace
