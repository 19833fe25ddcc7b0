// The coalescing lab on the emulator, through the registry: every output
// element checked, the read's sectors per request at every setting against a
// derivation by hand, bad settings refused, wrong copies caught.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "labs/coalescing/sweep.h"
#include "labs/coalescing/versions.h"
#include "labs/common/lab.h"
#include "labs/common/traced_run.h"
#include "warplab/ptx/ptx.h"

namespace warplab::coalescing {
namespace {

const Lab& lab()
{
    const Lab* l = find_lab("coalescing");
    if (!l) throw std::logic_error("the coalescing lab is not registered");
    return *l;
}

RunRequest request(const std::string& version, std::size_t n, int setting, std::uint64_t seed = 1)
{
    RunRequest req;
    req.version = version;
    req.n = n;
    req.block = 256;
    req.type = "float";
    req.backend = BackendChoice::Cpu;
    req.setting = setting;
    req.seed = seed;
    return req;
}

// ---- results -----------------------------------------------------------------

// Odd n leaves the last block and the last warp part-full (n = 4099: 16 full
// blocks and 3 threads of a 17th); settings on and off the 8-word sector
// grid; seeds other than the default. make_input gives distinct neighbours,
// so a copy from a wrong index fails the element-by-element check.
TEST(CoalescingCopy, EveryElementRightForOddSizes)
{
    for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(4099)})
        for (int offset : {0, 1, 5, 8, 31, 32}) {
            const RunResult r = lab().run(request("v1", n, offset, 7 + n));
            EXPECT_TRUE(r.ok) << "v1 n = " << n << " offset " << offset << ": " << r.check;
        }
    for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(2051)})
        for (int stride : {1, 2, 3, 7, 8, 9, 32}) {
            const RunResult r = lab().run(request("v2", n, stride, 11 + n));
            EXPECT_TRUE(r.ok) << "v2 n = " << n << " stride " << stride << ": " << r.check;
        }
}

// No setting given (-1): v1 runs offset 0, v2 stride 1, as versions.h says.
TEST(CoalescingCopy, DefaultSettingIsTheVersions)
{
    EXPECT_NE(lab().run(request("v1", 300, -1)).problem.find("in[i + 0]"), std::string::npos);
    EXPECT_NE(lab().run(request("v2", 300, -1)).problem.find("in[i * 1]"), std::string::npos);
}

// ---- sectors per request, derived by hand ----------------------------------
//
// Allocations are 256-byte aligned (as cudaMalloc). n = 4096, block 256: block
// 0 is full, 8 warps, each one load request and one store request.
//
// Offset: warp w reads floats 32w + o .. 32w + o + 31, bytes 128w + 4o ..
// 128w + 4o + 127. 128w is a multiple of 32, so the 128 bytes start 4o mod 32
// bytes into a sector: 0 when o is a multiple of 8 (4 sectors exactly), else
// the span crosses 4 sector boundaries and touches 5 sectors.
double offset_sectors(unsigned o) { return o % 8 == 0 ? 4 : 5; }

// Stride: lane l of warp w reads float (32w + l)·s, at byte 128ws + 4ls. The
// warp's base 128ws is a multiple of 32, so lane l falls in sector
// floor(4ls / 32) = floor(ls / 8) of the warp's. For s <= 8 consecutive lanes
// are s/8 <= 1 sector apart, so every sector from 0 to floor(31s / 8) is hit:
// floor(31s / 8) + 1 = 4s + floor(-s / 8) + 1 = 4s (since 1 <= s <= 8 gives
// floor(-s / 8) = -1): 4, 8, 12, ..., 32. For s >= 8 lanes are a sector or
// more apart: 32, one per lane.
double stride_sectors(unsigned s) { return s < 8 ? 4.0 * s : 32.0; }

// The ideal: 32 lanes × 4 distinct bytes = 128 bytes = 4 sectors, every setting.
constexpr double kIdeal = 4;

// Every setting of the version's sweep against the derivation above.
void expect_sweep(const std::string& version, std::size_t settings, double (*derived)(unsigned))
{
    const Sweep s = sweep(lab(), request(version, 4096, -1), nullptr);
    ASSERT_EQ(s.points.size(), settings);
    for (const SweepPoint& p : s.points) {
        EXPECT_DOUBLE_EQ(p.sectors, derived(p.setting)) << version << " " << s.setting_name << " " << p.setting;
        EXPECT_DOUBLE_EQ(p.ideal, kIdeal) << version << " " << s.setting_name << " " << p.setting;
        EXPECT_EQ(p.gbps, 0) << "nothing recorded was passed in";
    }
}

TEST(CoalescingSectors, OffsetSweepMatchesHandDerivation) { expect_sweep("v1", 33, offset_sectors); }  // offsets 0 .. 32
TEST(CoalescingSectors, StrideSweepMatchesHandDerivation) { expect_sweep("v2", 32, stride_sectors); }  // strides 1 .. 32

// The write out[i] is the same in both versions: 4 sectors, the ideal, at
// any setting (checked at the extremes of each sweep).
TEST(CoalescingSectors, StoresStayCoalesced)
{
    for (const auto& [version, setting] : {std::pair{"v1", 5}, std::pair{"v2", 32}}) {
        const TracedRun run = trace_version(lab(), request(version, 4096, setting));
        EXPECT_EQ(run.totals.global_store.requests, 8u) << version;  // 8 warps, one store each
        EXPECT_EQ(run.totals.global_store.sectors, 32u) << version;  // 4 per request
    }
}

// A recorded table's rows are found by row_name ("v1 offset 5"); a row that
// failed validation is not quoted.
TEST(CoalescingSweep, QuotesRecordedRatesByRowName)
{
    BenchTable t;
    t.lab = "coalescing";
    BenchRow good, wrong;
    good.version = row_name("v1", 5);
    good.ok = true;
    good.rate = 1234;
    wrong.version = row_name("v1", 6);
    wrong.ok = false;
    wrong.rate = 999;
    t.rows = {good, wrong};
    EXPECT_EQ(good.version, "v1 offset 5");
    const TracedRun run = trace_version(lab(), request("v1", 4096, 5));
    EXPECT_EQ(sweep_point("v1", 5, run, &t).gbps, 1234);
    EXPECT_EQ(sweep_point("v1", 6, run, &t).gbps, 0);
    EXPECT_EQ(sweep_point("v2", 5, run, &t).gbps, 0);
}

// ---- bad input ---------------------------------------------------------------

TEST(CoalescingInput, RefusesSettingsOutsideTheSweep)
{
    EXPECT_THROW(lab().run(request("v1", 100, 33)), std::invalid_argument);
    EXPECT_THROW(lab().run(request("v2", 100, 0)), std::invalid_argument);
    EXPECT_THROW(lab().run(request("v2", 100, 33)), std::invalid_argument);
    EXPECT_THROW(lab().run(request("v3", 100, 1)), std::invalid_argument);
    RunRequest ints = request("v1", 100, 1);
    ints.type = "int";
    EXPECT_THROW(lab().run(ints), std::invalid_argument);
    RunRequest odd_block = request("v1", 100, 1);
    odd_block.block = 100;
    EXPECT_THROW(lab().run(odd_block), std::invalid_argument);
}

// ---- wrong copies fail ---------------------------------------------------------

RunResult run_wrong(const std::string& version, const std::string& kernel, std::size_t n, int setting)
{
    RunRequest req = request(version, n, setting);
    req.file = std::string(WARPLAB_SOURCE_DIR) + "/tests/coalescing/wrong_copies.cu";
    req.kernel = kernel;
    return lab().run(req);
}

TEST(CoalescingWrong, CopiesThatAreNotTheVersionsFail)
{
    if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc (the CUDA toolkit)";
    // Ignores the offset: right at offset 0, wrong at 5.
    EXPECT_TRUE(run_wrong("v1", "copy_ignoring_setting", 999, 0).ok);
    EXPECT_FALSE(run_wrong("v1", "copy_ignoring_setting", 999, 5).ok);
    // Does half the work: out[499 ..] stays NaN.
    const RunResult half = run_wrong("v1", "copy_first_half", 999, 3);
    EXPECT_FALSE(half.ok);
    EXPECT_NE(half.check.find("out[499]"), std::string::npos) << half.check;
    // v1's index in v2's place: wrong from the first element on (in[0 + 3] != in[0 * 3]).
    const RunResult shifted = run_wrong("v2", "copy_shifted_not_strided", 999, 3);
    EXPECT_FALSE(shifted.ok);
    EXPECT_NE(shifted.check.find("out[0]"), std::string::npos) << shifted.check;
}

}  // namespace
}  // namespace warplab::coalescing
