// One plain-CUDA kernel per everyday construct the lab's own kernels do not
// use (integer atomics, __activemask, __match_*_sync, __reduce_*_sync,
// __ldg, fast-math intrinsics, clock64, __half), each result checked against
// values computed on the host or derived by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include "corpus/corpus_test.h"

namespace warplab::test {
namespace {

using namespace corpus;

// ---- integer atomics ----

// Where each cell starts and must end after folding `in` in any order.
template <class T> struct AtomicCells {
    static constexpr bool has_sub = sizeof(T) == 4;
    static constexpr bool has_inc_dec = std::is_same_v<T, unsigned>;
    static constexpr T kExchStart = T(12345);
    static constexpr T kInactive = T(7);  // inc/dec (and sub) cells of types without them, and dec's start

    static std::vector<T> start()
    {
        std::vector<T> c(kCells, kInactive);
        c[kAdd] = 0;
        c[kSub] = has_sub ? T(0) : kInactive;
        c[kOr] = 0;
        c[kAnd] = static_cast<T>(~T(0));
        c[kXor] = 0;
        c[kMin] = std::numeric_limits<T>::max();
        c[kMax] = std::numeric_limits<T>::lowest();
        c[kExch] = kExchStart;
        c[kInc] = has_inc_dec ? T(0) : kInactive;
        return c;
    }

    // Add and sub wrap modulo 2^bits whatever the signedness: computed unsigned.
    static std::vector<T> end(const std::vector<T>& in)
    {
        using U = std::make_unsigned_t<T>;
        std::vector<T> c = start();
        U sum = 0;
        for (T v : in) {
            sum += static_cast<U>(v);
            c[kOr] |= v;
            c[kAnd] &= v;
            c[kXor] ^= v;
            c[kMin] = std::min(c[kMin], v);
            c[kMax] = std::max(c[kMax], v);
        }
        c[kAdd] = static_cast<T>(sum);
        if (has_sub) c[kSub] = static_cast<T>(U(0) - sum);
        if constexpr (has_inc_dec) {
            // atomicInc: old >= limit ? 0 : old + 1, from 0: n increments land on n mod (limit + 1).
            c[kInc] = static_cast<T>(in.size() % (kIncLimit + 1));
            // atomicDec: old == 0 || old > limit ? limit : old - 1, from 7 <= limit:
            // k decrements land on (7 - k) mod (limit + 1).
            const long long m = kDecLimit + 1;
            c[kDec] = static_cast<T>(((7 - static_cast<long long>(in.size())) % m + m) % m);
        }
        c[kExch] = T(0);  // not predicted: checked as a multiset
        return c;
    }
};

template <class T> std::vector<T> atomic_inputs(std::size_t n, std::uint64_t seed)
{
    if constexpr (std::is_signed_v<T>) return seeded_ints<T>(n, -100000, 100000, seed);
    return seeded_ints<T>(n, 0, std::numeric_limits<T>::max(), seed);
}

// The kernel's name for T, as its explicit instantiation is found.
template <class T> std::string instance(const char* kernel)
{
    const char* type = std::is_same_v<T, int> ? "int" : std::is_same_v<T, unsigned> ? "unsigned int" : "unsigned long long";
    return std::string(kernel) + "<" + type + ">";
}

template <class T> void check_atomics(Schedule schedule, const char* kernel, dim3 grid, dim3 block, std::size_t n)
{
    SCOPED_TRACE(instance<T>(kernel) + ", n = " + std::to_string(n));
    Emulator emu;
    emu.options.schedule = schedule;
    const auto in_host = atomic_inputs<T>(n, 100 + n);
    T* in = to_device(emu, in_host);
    T* cells = to_device(emu, AtomicCells<T>::start());
    T* exchanged = emu.alloc<T>(n);
    ASSERT_NO_THROW(wl::ptx::launch(emu, corpus_module("int_atomics.cu"), instance<T>(kernel), grid, block, 0, in,
                                    static_cast<unsigned>(n), cells, exchanged));
    auto got = to_host(emu, cells, kCells);
    const auto expected = AtomicCells<T>::end(in_host);
    const char* names[kCells] = {"add", "sub", "or", "and", "xor", "min", "max", "exch", "inc", "dec"};
    for (unsigned c = 0; c < kCells; ++c)
        if (c != kExch) EXPECT_EQ(got[c], expected[c]) << names[c];

    // Exch: the values handed back plus the last one stored are the inputs plus the start.
    auto handed = to_host(emu, exchanged, n);
    handed.push_back(got[kExch]);
    auto offered = in_host;
    offered.push_back(AtomicCells<T>::kExchStart);
    std::sort(handed.begin(), handed.end());
    std::sort(offered.begin(), offered.end());
    EXPECT_EQ(handed, offered) << "exch";
}

class IntAtomics : public CorpusScheduleTest {};

TEST_P(IntAtomics, OnGlobalMemoryAcrossBlocks)
{
    // 3 blocks of 96 threads stride over n.
    for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{4099}}) {
        check_atomics<int>(GetParam(), "atomics_global", dim3(3), dim3(96), n);
        check_atomics<unsigned>(GetParam(), "atomics_global", dim3(3), dim3(96), n);
        check_atomics<unsigned long long>(GetParam(), "atomics_global", dim3(3), dim3(96), n);
    }
}

TEST_P(IntAtomics, OnSharedMemory)
{
    for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{4099}}) {
        check_atomics<int>(GetParam(), "atomics_shared", dim3(1), dim3(96), n);
        check_atomics<unsigned>(GetParam(), "atomics_shared", dim3(1), dim3(96), n);
        check_atomics<unsigned long long>(GetParam(), "atomics_shared", dim3(1), dim3(96), n);
    }
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, IntAtomics, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- __activemask ----

TEST_F(CorpusTest, ActivemaskNamesTheLanesThatExist)
{
    for (unsigned lanes : {20u, 32u}) {
        SCOPED_TRACE(std::to_string(lanes) + " lanes");
        Emulator emu;
        unsigned* rows = zeros<unsigned>(emu, kMaskRows * kWarp);
        ASSERT_NO_THROW(run_corpus(emu, "warp_intrinsics.cu", "active_masks", dim3(1), dim3(lanes), 0, rows));
        const auto got = to_host(emu, rows, kMaskRows * kWarp);
        const unsigned existing = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;  // 20 lanes: 0x000fffff
        for (unsigned lane = 0; lane < lanes; ++lane) {
            SCOPED_TRACE("lane " + std::to_string(lane));
            // Every lane asks before the __syncwarp that all existing lanes
            // must reach, so none can have left yet: all of them are active.
            // (Later, under independent scheduling, lanes that ran ahead and
            // exited would rightly be missing from the mask.)
            EXPECT_EQ(got[kConverged * kWarp + lane], existing);
            // In the branch of lanes 0, 3, 6, ...: the calling lane is active, and no lane that does not exist.
            const unsigned divergent = got[kDivergent * kWarp + lane];
            if (lane % 3 == 0) {
                EXPECT_NE(divergent & (1u << lane), 0u);
                EXPECT_EQ(divergent & ~existing, 0u);
            } else {
                EXPECT_EQ(divergent, 0u);
            }
        }
    }
}

// ---- warp-aggregated atomics: __activemask and cg::coalesced_threads ----

class AggregatedAtomics : public CorpusScheduleTest {};

TEST_P(AggregatedAtomics, CountEveryThreadThatTookPartOnce)
{
    // 3 blocks of 96 threads (3 warps each) over n: threads from n on leave at
    // once. Whatever lanes a warp's leader counts, every lane that took part
    // must be counted exactly once: the counter ends at n.
    for (const char* kernel : {"with_activemask", "with_coalesced_group"}) {
        for (unsigned n : {1u, 31u, 33u, 200u, 288u}) {
            SCOPED_TRACE(std::string(kernel) + ", n = " + std::to_string(n));
            Emulator emu;
            emu.options.schedule = GetParam();
            unsigned* counter = zeros<unsigned>(emu, 1);
            ASSERT_NO_THROW(run_corpus(emu, "aggregated_atomics.cu", kernel, dim3(3), dim3(96), 0, n, counter));
            EXPECT_EQ(to_host(emu, counter, 1)[0], n);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, AggregatedAtomics, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

// ---- __match_any_sync, __match_all_sync ----

TEST_F(CorpusTest, MatchAnyAndAll)
{
    struct Case {
        const char* what;
        std::vector<int> keys;
    };
    const Case cases[] = {{"keys in 0..3", seeded_ints<int>(kWarp, 0, 3, 13)}, {"all keys 5", std::vector<int>(kWarp, 5)}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        Emulator emu;
        int* keys = to_device(emu, c.keys);
        unsigned* rows = zeros<unsigned>(emu, kMatchRows * kWarp);
        ASSERT_NO_THROW(run_corpus(emu, "warp_intrinsics.cu", "matches", dim3(1), dim3(kWarp), 0, keys, rows));
        const auto got = to_host(emu, rows, kMatchRows * kWarp);
        const bool all_same = std::all_of(c.keys.begin(), c.keys.end(), [&](int k) { return k == c.keys[0]; });
        for (unsigned lane = 0; lane < kWarp; ++lane) {
            SCOPED_TRACE("lane " + std::to_string(lane));
            unsigned same = 0;  // lanes whose key equals this lane's
            for (unsigned other = 0; other < kWarp; ++other)
                if (c.keys[other] == c.keys[lane]) same |= 1u << other;
            EXPECT_EQ(got[kAny32 * kWarp + lane], same);
            EXPECT_EQ(got[kAny64 * kWarp + lane], same) << "the 64-bit key differs only above bit 40";
            EXPECT_EQ(got[kAllMask * kWarp + lane], all_same ? 0xffffffffu : 0u);
            EXPECT_EQ(got[kAllPred * kWarp + lane], all_same ? 1u : 0u);
            EXPECT_EQ(got[kAllOfSame * kWarp + lane], 1u) << "every lane offers 42";
        }
    }
    // The random keys are not all equal (else the first case tested nothing new).
    EXPECT_FALSE(std::all_of(cases[0].keys.begin(), cases[0].keys.end(), [&](int k) { return k == cases[0].keys[0]; }));
}

// ---- __reduce_*_sync ----

TEST_F(CorpusTest, ReduceMaxMinAndBitwiseOverTheWarp)
{
    const auto values = seeded_ints<int>(kWarp, -1000000, 1000000, 14);
    int* in = to_device(emu, values);
    int* rows = emu.alloc<int>(kReduceRows * kWarp);
    ASSERT_NO_THROW(run_corpus(emu, "warp_intrinsics.cu", "reductions", dim3(1), dim3(kWarp), 0, in, rows));
    const auto got = to_host(emu, rows, kReduceRows * kWarp);

    std::vector<unsigned> bits(values.begin(), values.end());
    unsigned all_and = ~0u, all_or = 0, all_xor = 0;
    for (unsigned b : bits) all_and &= b, all_or |= b, all_xor ^= b;
    const auto as_unsigned = [](int v) { return static_cast<unsigned>(v); };
    for (unsigned lane = 0; lane < kWarp; ++lane) {
        SCOPED_TRACE("lane " + std::to_string(lane));
        EXPECT_EQ(got[kMaxSigned * kWarp + lane], *std::max_element(values.begin(), values.end()));
        EXPECT_EQ(got[kMinSigned * kWarp + lane], *std::min_element(values.begin(), values.end()));
        // As unsigned, negative numbers are the largest: the order differs from the signed one.
        EXPECT_EQ(as_unsigned(got[kMaxUnsigned * kWarp + lane]), *std::max_element(bits.begin(), bits.end()));
        EXPECT_EQ(as_unsigned(got[kMinUnsigned * kWarp + lane]), *std::min_element(bits.begin(), bits.end()));
        EXPECT_EQ(as_unsigned(got[kAndBits * kWarp + lane]), all_and);
        EXPECT_EQ(as_unsigned(got[kOrBits * kWarp + lane]), all_or);
        EXPECT_EQ(as_unsigned(got[kXorBits * kWarp + lane]), all_xor);
    }
    // Both signs are present, so signed and unsigned orders really differ.
    EXPECT_LT(*std::min_element(values.begin(), values.end()), 0);
    EXPECT_GT(*std::max_element(values.begin(), values.end()), 0);
}

// ---- __ldg ----

TEST_F(CorpusTest, LdgLoadsTheSameValuesAsPlainLoads)
{
    for (std::size_t n : odd_sizes()) {
        SCOPED_TRACE("n = " + std::to_string(n));
        Emulator emu;
        const auto values = seeded_ints<int>(n, -1000, 1000, 15 + n);
        int* in = to_device(emu, values);
        int* out = emu.alloc<int>(n);
        ASSERT_NO_THROW(run_corpus(emu, "ldg.cu", "mirror_sum_ldg", dim3(blocks_for(n, 128)), dim3(128), 0, in, out,
                                   static_cast<unsigned>(n)));
        const auto got = to_host(emu, out, n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], values[i] + values[n - 1 - i]) << "i = " << i;
    }
}

// ---- fast-math intrinsics within their documented error bounds ----

// |got - exact| in units of the last place of the float nearest to exact.
double ulp_error(float got, double exact)
{
    const float nearest = static_cast<float>(exact);
    const double ulp = std::nextafter(std::fabs(nearest), std::numeric_limits<float>::infinity()) - std::fabs(nearest);
    return std::fabs(double(got) - exact) / ulp;
}

TEST_F(CorpusTest, FastMathIntrinsicsStayWithinTheirDocumentedBounds)
{
    // NVIDIA, CUDA C++ Programming Guide, "Mathematical Functions": maximum
    // errors against the correctly rounded result: __expf(x) 2 + floor(|1.173 x|)
    // ulp; rsqrtf(x) 2 ulp; __fdividef(x, y) 2 ulp for 2^-126 <= |y| <= 2^126.
    // The exact value is itself up to half an ulp from the correctly rounded
    // one, hence the + 0.5 below.
    constexpr unsigned n = 999;
    const auto x = seeded_floats(n, -10, 10, 16);
    auto y = seeded_floats(n, 0.5f, 100, 17);
    const auto sign = seeded_ints<int>(n, 0, 1, 18);
    for (unsigned i = 0; i < n; ++i) y[i] = sign[i] ? -y[i] : y[i];
    const auto log_r = seeded_floats(n, -7, 7, 19);
    std::vector<float> r(n);
    for (unsigned i = 0; i < n; ++i) r[i] = std::exp(log_r[i]);  // about 1e-3 .. 1e3

    float* dx = to_device(emu, x);
    float* dy = to_device(emu, y);
    float* dr = to_device(emu, r);
    float* rows = emu.alloc<float>(kFastRows * n);
    ASSERT_NO_THROW(run_corpus(emu, "fast_math.cu", "fast_math", dim3(blocks_for(n, 128)), dim3(128), 0, dx, dy, dr, n, rows));
    const auto got = to_host(emu, rows, kFastRows * n);
    for (unsigned i = 0; i < n; ++i) {
        SCOPED_TRACE("x = " + std::to_string(x[i]) + ", y = " + std::to_string(y[i]) + ", r = " + std::to_string(r[i]));
        EXPECT_LE(ulp_error(got[kExp * n + i], std::exp(double(x[i]))), 2 + std::floor(std::fabs(1.173 * x[i])) + 0.5);
        EXPECT_LE(ulp_error(got[kRsqrt * n + i], 1 / std::sqrt(double(r[i]))), 2.5);
        EXPECT_LE(ulp_error(got[kDivide * n + i], double(x[i]) / y[i]), 2.5);
        // __int_as_float(__float_as_int(x) ^ sign bit) is -x, bit for bit.
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got[kSignFlip * n + i]), std::bit_cast<std::uint32_t>(-x[i]));
    }
}

// ---- clock64 ----

TEST_F(CorpusTest, Clock64AdvancesOverWork)
{
    // 2 blocks of 48 threads; each reads clock64(), runs 100 rounds of an LCG, reads it again.
    constexpr unsigned kThreads = 96, kRounds = 100;
    long long* out = emu.alloc<long long>(3 * kThreads);
    ASSERT_NO_THROW(run_corpus(emu, "clock64.cu", "elapsed_cycles", dim3(2), dim3(48), 0, out, kRounds));
    const auto got = to_host(emu, out, 3 * kThreads);
    for (unsigned i = 0; i < kThreads; ++i) {
        SCOPED_TRACE("thread " + std::to_string(i));
        EXPECT_GT(got[3 * i + 1], got[3 * i]) << "the second reading is later";
        unsigned x = i;
        for (unsigned k = 0; k < kRounds; ++k) x = x * 1664525u + 1013904223u;
        EXPECT_EQ(static_cast<unsigned>(got[3 * i + 2]), x);
    }
}

// ---- __half ----

TEST_F(CorpusTest, HalfConversionsAndArithmeticRoundToNearestEven)
{
    // Hand-derived cases (half: 10 stored mantissa bits, largest finite 65504):
    //   1 + 2^-11: halfway between 1 and 1 + 2^-10; the even one is 1.
    //   1 + 3 * 2^-11: halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): 1 + 2^-9.
    //   65520 + 0: 65520 is halfway between 65504 (odd mantissa) and 2^16, which
    //     is past the largest half: __float2half gives infinity.
    //   300 * 300 = 90000 > 65504: infinity.
    //   0.1 + 0: 0.1 = 1.6 x 2^-4, mantissa 0.6 x 1024 = 614.4 -> 614:
    //     (1 + 614/1024) x 2^-4 = 0.0999755859375.
    const float inf = std::numeric_limits<float>::infinity();
    struct Case {
        float a, b, sum, product;
    };
    std::vector<Case> cases{{1.0f, std::ldexp(1.0f, -11), 1.0f, std::ldexp(1.0f, -11)},
                            {1.0f, 3 * std::ldexp(1.0f, -11), 1.0f + std::ldexp(1.0f, -9), 3 * std::ldexp(1.0f, -11)},
                            {65520.0f, 0.0f, inf, std::nanf("")},
                            {300.0f, 300.0f, 600.0f, inf},
                            {0.1f, 0.0f, 0.0999755859375f, 0.0f}};
    // Quarters in [-8, 8]: their sums (quarters up to 16) and products
    // (sixteenths up to 64) need at most 11 significant bits: exact in half.
    const auto qa = seeded_ints<int>(301, -32, 32, 20), qb = seeded_ints<int>(301, -32, 32, 21);
    for (std::size_t i = 0; i < qa.size(); ++i) {
        const float a = qa[i] / 4.0f, b = qb[i] / 4.0f;
        cases.push_back({a, b, a + b, a * b});
    }
    std::vector<float> a, b;
    for (const Case& c : cases) a.push_back(c.a), b.push_back(c.b);
    const unsigned n = static_cast<unsigned>(cases.size());
    float* da = to_device(emu, a);
    float* db = to_device(emu, b);
    float* sum = emu.alloc<float>(n);
    float* product = emu.alloc<float>(n);
    ASSERT_NO_THROW(run_corpus(emu, "half.cu", "half_arithmetic", dim3(blocks_for(n, 64)), dim3(64), 0, da, db, n, sum, product));
    const auto got_sum = to_host(emu, sum, n), got_product = to_host(emu, product, n);
    for (unsigned i = 0; i < n; ++i) {
        SCOPED_TRACE("a = " + std::to_string(a[i]) + ", b = " + std::to_string(b[i]));
        EXPECT_EQ(got_sum[i], cases[i].sum);
        // 65520 * 0: infinity times zero is NaN.
        if (std::isnan(cases[i].product)) {
            EXPECT_TRUE(std::isnan(got_product[i]));
        } else {
            EXPECT_EQ(got_product[i], cases[i].product);
        }
    }
}

}  // namespace
}  // namespace warplab::test
