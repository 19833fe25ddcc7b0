// The interpreter gives the words an H100 gives where the host's answer and
// the GPU's part (rules the differential tests' generated kernels found
// against the GPU): canonical NaNs, the sign of a zero from min, max and .sat,
// NaN and out-of-range values converted to integers; and the integer SIMD
// instructions (dp4a, dp2a, vabsdiff4, the 16x2 lanes) and min.NaN as PTX
// defines them. Inputs come from memory so that nvcc cannot fold the
// operations away.
#include <bit>
#include <cmath>
#include <cstring>

#include "ptx_test_util.h"

namespace {

using wl::ptx::testing::compile_module;

template <class T> T* upload(wl::emu::Emulator& emu, std::initializer_list<T> values)
{
    T* p = emu.alloc<T>(values.size());
    std::copy(values.begin(), values.end(), p);
    return p;
}

// One thread's results as words, `count` of them, from kernel `name` of `source`.
template <class... Args>
std::vector<unsigned> run(const char* source, const char* name, unsigned count, Args... args)
{
    const auto m = compile_module(source);
    wl::emu::Emulator emu;
    unsigned* out = emu.alloc<unsigned>(count);
    wl::ptx::launch(emu, m, name, dim3(1), dim3(1), 0, args(emu)..., out);
    return {out, out + count};
}

const char* kNans = R"(
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void nans(const unsigned* in, const double* din, unsigned* out)
{
    const float pnan = __uint_as_float(in[0]), nnan = __uint_as_float(in[1]), two = __uint_as_float(in[2]);
    const double dnan = din[0];
    out[0] = __float_as_uint(__fadd_rn(nnan, two));      // arithmetic: the canonical NaN 0x7FFFFFFF
    out[1] = __float_as_uint(__fmul_rz(two, pnan));      // a directed rounding too
    out[2] = __float_as_uint(fmaf(pnan, two, nnan));
    out[3] = __float_as_uint(fminf(nnan, pnan));         // min of two NaNs: canonical
    out[4] = __float_as_uint(sqrtf(nnan));
    out[5] = __half_as_ushort(__float2half_rn(nnan));    // to f16: 0x7FFF
    out[6] = __bfloat16_as_ushort(__float2bfloat16_rn(nnan));  // to bf16: 0x7FFF
    out[7] = __float_as_uint(__half2float(__ushort_as_half((unsigned short)in[3])));  // f16 NaN to f32: canonical
    out[8] = __float_as_uint(__bfloat162float(__ushort_as_bfloat16((unsigned short)in[4])));  // bf16 to f32: the bits, << 16
    const double wide = (double)nnan;                    // f32 to f64 keeps the payload: 0xFFFFFF72 -> 0xFFFFFFEE40000000
    out[9] = (unsigned)__double2hiint(wide);
    out[10] = (unsigned)__double2loint(wide);
    out[11] = __float_as_uint(__double2float_rn(dnan));  // f64 to f32 keeps the payload's top: 0x7FFFE000... -> 0x7FFF0000
    out[12] = (unsigned)__double2hiint(fabs(din[1]));    // abs of a double NaN leaves it as it is, sign included
    out[13] = __float_as_uint(__uint_as_float(in[1]));   // a move passes the payload: 0xFFFFFF72
}
)";

TEST(PtxGpuSemantics, NaNsAsTheGpuWritesThem)
{
    WL_SKIP_WITHOUT_NVCC();
    // in: a positive NaN with a payload, a negative one, 2.0, f16 NaN 0xFE01, bf16 signalling NaN 0xFF91;
    // din: the NaN 0x7FFFE00000000000 (f32's canonical NaN widened), a negative NaN 0xFFF8000000000123.
    const auto w = run(kNans, "nans", 14,
                       [](wl::emu::Emulator& e) { return upload<unsigned>(e, {0x7FC12345u, 0xFFFFFF72u, 0x40000000u, 0xFE01u, 0xFF91u}); },
                       [](wl::emu::Emulator& e) { return upload<double>(e, {std::bit_cast<double>(0x7FFFE00000000000ULL),
                                                                                     std::bit_cast<double>(0xFFF8000000000123ULL)}); });
    const unsigned expect[14] = {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFF, 0x7FFF, 0x7FFFFFFF,
                                 0xFF910000,
                                 0xFFFFFFEE,  // sign 1, exponent 0x7FF, payload 0x7FFF72 << 29: top 20 bits 0xFFFEE
                                 0x40000000,  // the payload's low 3 bits (0b010) at the top of the low word
                                 0x7FFF0000,  // the f64 payload's top 23 bits: 0x7FFF00
                                 0xFFF80000,  // the negative NaN's high word, unchanged
                                 0xFFFFFF72};
    for (int i = 0; i < 14; ++i) EXPECT_EQ(w[i], expect[i]) << "out[" << i << "]";
}

const char* kDoubleNans = R"(
__device__ void put(unsigned* out, int i, double d)
{
    out[2 * i] = (unsigned)__double2loint(d);
    out[2 * i + 1] = (unsigned)__double2hiint(d);
}
__global__ void double_nans(const double* din, unsigned* out)
{
    const double p = din[0], n = din[1], two = din[2];
    put(out, 0, __dadd_rn(p, n));       // a sum keeps its first operand's NaN
    put(out, 1, __dadd_rn(n, p));       // ... made quiet
    put(out, 2, __dsub_rn(two, n));     // a difference passes the second's as it is, sign not flipped
    put(out, 3, __ddiv_rn(n, p));       // a quotient: the first
    put(out, 4, __dmul_rn(p, n));       // a product keeps the multiplier b's NaN before a's
    put(out, 5, __dmul_rz(n, p));       // so does a directed one
    put(out, 6, __fma_rn(p, n, two));   // fma: b, then a, then c
    put(out, 7, __fma_rz(p, two, n));
    put(out, 8, __fma_ru(two, two, n));
}
)";

TEST(PtxGpuSemantics, DoubleNaNsKeepAnOperandsNaN)
{
    WL_SKIP_WITHOUT_NVCC();
    // p = 0x7FF8000000000001 (quiet, payload 1), n = 0xFFF0000000000002 (signalling, negative,
    // payload 2), 2.0. Each result is one operand's NaN with the quiet bit (51) set:
    // p stays 0x7FF80000'00000001, n becomes 0xFFF80000'00000002. Words: low, high.
    const auto w = run(kDoubleNans, "double_nans", 18, [](wl::emu::Emulator& e) {
        return upload<double>(e, {std::bit_cast<double>(0x7FF8000000000001ULL), std::bit_cast<double>(0xFFF0000000000002ULL), 2.0});
    });
    const unsigned p[2] = {1, 0x7FF80000}, n[2] = {2, 0xFFF80000};
    const unsigned* expect[9] = {p, n, n, n, n, p, n, p, n};
    for (int i = 0; i < 9; ++i) {
        EXPECT_EQ(w[2 * i], expect[i][0]) << "result " << i << ", low word";
        EXPECT_EQ(w[2 * i + 1], expect[i][1]) << "result " << i << ", high word";
    }
}

// fmin and fmax of two double NaNs: PTX's double instructions carry NaN
// payloads (its floating-point instructions' overview), so min.f64 gives an
// operand's NaN, made quiet, not a canonical one. Found by the differential
// tests (kernel 867 of seed 1: d0 = (double)f0 of the f32 NaN 0xFFFFFF62,
// then fmin(d0, (double)f0); the H100's high word was 0xFFFFFFEC). By hand:
// 0xFFFFFF62 widens to sign 1, exponent 0x7FF, fraction 0x7FFF62 << 29 =
// 0xFFFEC'40000000, so the double is 0xFFFFFFEC'40000000.
const char* kDoubleMinMax = R"(
__device__ void put(unsigned* out, int i, double d)
{
    out[2 * i] = (unsigned)__double2loint(d);
    out[2 * i + 1] = (unsigned)__double2hiint(d);
}
__global__ void double_min_max(const unsigned* in, const double* din, unsigned* out)
{
    const double wide = (double)__uint_as_float(in[0]);
    put(out, 0, fmin(wide, (double)__uint_as_float(in[1])));  // two NaNs, the same: that NaN
    put(out, 1, fmax(din[0], din[2]));       // a signalling NaN twice: made quiet, sign and payload kept
    put(out, 2, fmin(din[0], din[1]));       // one NaN: the number
    put(out, 3, fmax(din[1], din[0]));
}
)";

TEST(PtxGpuSemantics, DoubleMinMaxOfTwoNaNsKeepsAPayload)
{
    WL_SKIP_WITHOUT_NVCC();
    // in: the f32 NaN 0xFFFFFF62 twice; din: the signalling NaN 0xFFF00000'00000005, 2.5 (0x40040000'00000000), the NaN again
    const auto w = run(kDoubleMinMax, "double_min_max", 8,
                       [](wl::emu::Emulator& e) { return upload<unsigned>(e, {0xFFFFFF62u, 0xFFFFFF62u}); },
                       [](wl::emu::Emulator& e) { return upload<double>(e, {std::bit_cast<double>(0xFFF0000000000005ULL), 2.5,
                                                                                     std::bit_cast<double>(0xFFF0000000000005ULL)}); });
    // low word first: 0xFFFFFFEC'40000000; 0xFFF80000'00000005 (the quiet bit 51 set); 2.5 twice
    EXPECT_EQ(w, (std::vector<unsigned>{0x40000000u, 0xFFFFFFECu, 5u, 0xFFF80000u, 0u, 0x40040000u, 0u, 0x40040000u}));
}

const char* kBf16Fma = R"(
#include <cuda_bf16.h>
__global__ void bf16_fma(const unsigned short* in, unsigned* out)
{
    const __nv_bfloat16 three = __ushort_as_bfloat16(in[0]), x = __ushort_as_bfloat16(in[1]), tiny = __ushort_as_bfloat16(in[2]);
    out[0] = __bfloat16_as_ushort(__hfma(three, x, tiny));
    out[1] = __bfloat16_as_ushort(__hfma(three, x, __hneg(tiny)));
}
)";

TEST(PtxGpuSemantics, Bf16FmaRoundsOnce)
{
    WL_SKIP_WITHOUT_NVCC();
    // 3 (0x4040) * (1 + 2^-7) (0x3F81) = 3.0234375, bf16's midpoint between
    // 3.015625 (0x4041) and 3.03125 (0x4042), whose ulp in [2, 4) is 2^-6.
    // Plus 2^-100 (0x0D80): above the midpoint, 0x4042. Minus 2^-100: below it,
    // 0x4041; rounded first to double (or float) it lands on the midpoint and
    // ties to the even 0x4042.
    const auto w = run(kBf16Fma, "bf16_fma", 2, [](wl::emu::Emulator& e) {
        return upload<unsigned short>(e, {0x4040, 0x3F81, 0x0D80});
    });
    EXPECT_EQ(w[0], 0x4042u);
    EXPECT_EQ(w[1], 0x4041u);
}

// `(long long)x` of an int or a short: nvcc loads it with ld.global.s32 (.s16)
// straight into a 64-bit register, which PTX sign-extends to the register's
// width. By hand: -5 is 0xFFFFFFFB, widened 0xFFFFFFFF'FFFFFFFB (low word
// first in memory); 7 stays 0x00000000'00000007; the short -2 (0xFFFE) is
// 0xFFFFFFFF'FFFFFFFE. A zero-extension would leave the high words 0.
const char* kWidening = R"(
__global__ void widen(const int* in, const short* narrow, unsigned* out)
{
    long long* wide = reinterpret_cast<long long*>(out);
    wide[0] = (long long)in[0];
    wide[1] = (long long)in[1];
    wide[2] = (long long)narrow[0];
}
)";

TEST(PtxGpuSemantics, SignedLoadsWidenToTheirRegister)
{
    const auto words = run(kWidening, "_Z5widenPKiPKsPj", 6, [](wl::emu::Emulator& e) { return upload<int>(e, {-5, 7}); },
                           [](wl::emu::Emulator& e) { return upload<short>(e, {-2}); });
    EXPECT_EQ(words, (std::vector<unsigned>{0xFFFFFFFBu, 0xFFFFFFFFu, 7u, 0u, 0xFFFFFFFEu, 0xFFFFFFFFu}));
}

const char* kZerosAndIntegers = R"(
#include <cuda_fp16.h>
__global__ void zeros_and_integers(const float* in, const double* din, unsigned* out)
{
    const float pz = in[0], nz = in[1], nan = in[2], big = in[3];  // +0, -0, NaN, 1e30
    out[0] = __float_as_uint(fmaxf(nz, pz));            // max orders -0 below +0: +0
    out[1] = __float_as_uint(fminf(pz, nz));            // min: -0
    out[2] = __float_as_uint(__saturatef(nz));          // .sat: -0 to +0
    out[3] = __half_as_ushort(__hmax(__float2half_rn(nz), __float2half_rn(pz)));  // f16 max: +0 (0x0000)
    out[4] = (unsigned)__double2int_rz(din[0]);         // f64 NaN to s32: 0x80000000
    out[5] = __double2uint_rz(din[0]);                  // f64 NaN to u32: 0x80000000
    out[6] = (unsigned)__float2int_rz(nan);             // f32 NaN to s32: 0
    const long long clamped = __float2ll_rz(big);       // 1e30 > 2^63 - 1: the largest, 0x7FFFFFFFFFFFFFFF
    out[7] = (unsigned)clamped;
    out[8] = (unsigned)(clamped >> 32);
    const long long low = __float2ll_rz(-big);          // the smallest, 0x8000000000000000
    out[9] = (unsigned)low;
    out[10] = (unsigned)(low >> 32);
}
)";

TEST(PtxGpuSemantics, SignedZerosAndIntegerConversions)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto w = run(kZerosAndIntegers, "zeros_and_integers", 11,
                       [](wl::emu::Emulator& e) { return upload<float>(e, {0.0f, -0.0f, NAN, 1e30f}); },
                       [](wl::emu::Emulator& e) { return upload<double>(e, {NAN}); });
    const unsigned expect[11] = {0x00000000, 0x80000000, 0x00000000, 0x0000, 0x80000000, 0x80000000, 0,
                                 0xFFFFFFFF, 0x7FFFFFFF, 0x00000000, 0x80000000};
    for (int i = 0; i < 11; ++i) EXPECT_EQ(w[i], expect[i]) << "out[" << i << "]";
}

const char* kSimd = R"(
#include <cuda_fp16.h>
__global__ void simd(const unsigned* in, const float* fin, unsigned* out)
{
    const unsigned a = in[0], b = in[1], c = in[2];
    out[0] = (unsigned)__dp4a((int)a, (int)b, (int)c);
    out[1] = __dp4a(a, b, c);
    out[2] = __dp2a_lo(a, b, c);
    out[3] = (unsigned)__dp2a_hi((int)a, (int)b, (int)c);
    out[4] = __vabsdiffu4(a, b);
    out[5] = __vadd2(a, b);
    out[6] = __vsub2(a, b);
    out[7] = __vminu2(a, b);
    out[8] = __vmaxs2(a, b);
    out[9] = __vmins2(a, b);
    out[10] = __half_as_ushort(__hmin_nan(__float2half_rn(fin[0]), __float2half_rn(fin[1])));
    out[11] = __half_as_ushort(__hmax_nan(__float2half_rn(fin[0]), __float2half_rn(fin[2])));
    out[12] = __half_as_ushort(__hmin(__float2half_rn(fin[0]), __float2half_rn(fin[1])));
    out[13] = __vabsdiffs4(a, b);
}
)";

TEST(PtxGpuSemantics, IntegerSimdAndMinNaN)
{
    WL_SKIP_WITHOUT_NVCC();
    // a = 0x80FF0203: bytes (low first) 3, 2, 0xFF, 0x80 (signed 3, 2, -1, -128), halves 0x0203, 0x80FF (-32513)
    // b = 0x02FE7F01: bytes 1, 0x7F, 0xFE, 0x02 (signed 1, 127, -2, 2), halves 0x7F01, 0x02FE
    // c = 10
    const auto w = run(kSimd, "simd", 14,
                       [](wl::emu::Emulator& e) { return upload<unsigned>(e, {0x80FF0203u, 0x02FE7F01u, 10u}); },
                       [](wl::emu::Emulator& e) { return upload<float>(e, {1.5f, NAN, -2.0f}); });
    const unsigned expect[14] = {
        // dp4a signed: 3*1 + 2*127 + (-1)(-2) + (-128)(2) + 10 = 3 + 254 + 2 - 256 + 10 = 13
        13,
        // dp4a unsigned: 3*1 + 2*127 + 255*254 + 128*2 + 10 = 3 + 254 + 64770 + 256 + 10 = 65293
        65293,
        // dp2a.lo unsigned: halves 0x0203 = 515, 0x80FF = 33023 times bytes 0, 1 of b (1, 127): 515 + 4193921 + 10
        4194446,
        // dp2a.hi signed: halves 515, -32513 times bytes 2, 3 of b (-2, 2): -1030 - 65026 + 10 = -66046
        static_cast<unsigned>(-66046),
        // vabsdiff4 unsigned, byte by byte: |3-1| = 2, |2-127| = 125, |255-254| = 1, |128-2| = 126
        0x7E017D02,
        // __vadd2: 0x0203 + 0x7F01 = 0x8104; 0x80FF + 0x02FE = 0x83FD
        0x83FD8104,
        // __vsub2: 0x0203 - 0x7F01 = 0x8302 (wraps); 0x80FF - 0x02FE = 0x7E01
        0x7E018302,
        // __vminu2: min(0x0203, 0x7F01) = 0x0203; min(0x80FF, 0x02FE) = 0x02FE
        0x02FE0203,
        // __vmaxs2: max(515, 32513) = 0x7F01; max(-32513, 766) = 0x02FE
        0x02FE7F01,
        // __vmins2: 0x0203; -32513 = 0x80FF
        0x80FF0203,
        // min.NaN.f16 (1.5, NaN): the canonical NaN; max.NaN (1.5, -2): 1.5 = 0x3E00; plain min (1.5, NaN): 1.5
        0x7FFF, 0x3E00, 0x3E00,
        // __vabsdiffs4 (signed bytes): |3-1| = 2, |2-127| = 125, |-1-(-2)| = 1, |-128-2| = 130 = 0x82
        0x82017D02};
    for (int i = 0; i < 14; ++i) EXPECT_EQ(w[i], expect[i]) << "out[" << i << "]";
}

}  // namespace
