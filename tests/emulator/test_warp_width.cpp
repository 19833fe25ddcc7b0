// The runtime at warp width 64 (AMD's wavefront) against 32, driven as the
// interpreter drives it: each thread of the launch runs a small C++ body on its
// fiber that calls the runtime's entries (core/src/emu/runtime.h) the way the
// interpreter does for the PTX it stands for. Expected values are derived by
// hand in each case. All cases together take well under a second.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/src/emu/runtime.h"
#include "warplab/emu/emulator.h"

namespace {

namespace rt = wl::emu::detail;
using wl::emu::Emulator;
using wl::emu::KernelFault;
using wl::emu::LaunchError;
using wl::emu::Schedule;
using wl::trace::Kind;

constexpr const char* kFile = "warp_width.cu";

// Runs `thread(flat)` once per thread of one block of `threads`, each on its own fiber.
void run_block(Emulator& emu, unsigned threads, const std::function<void(unsigned)>& thread)
{
    emu.options.workers = 1;
    auto call = [](void* ctx) { (*static_cast<const std::function<void(unsigned)>*>(ctx))(rt::current_lane().flat); };
    const rt::KernelBody body{const_cast<std::function<void(unsigned)>*>(&thread), call};
    emu.launch_body("warp_width", dim3(1), dim3(threads), body);
}

// A traced shared int access, as the interpreter makes one: the Lockstep
// round, the checks, then the memory.
void store(int* s, long long i, int v, unsigned line)
{
    rt::access_round();
    rt::check_shared_access(Kind::Store, s + i, 4, "s", i, nullptr, kFile, line, &v);
    s[i] = v;
}
int load(const int* s, long long i, unsigned line)
{
    rt::access_round();
    rt::check_shared_access(Kind::Load, const_cast<int*>(s + i), 4, "s", i, nullptr, kFile, line);
    return s[i];
}

// A collective as the interpreter's fiber lanes make one: arrive, wait, take.
template <class T> T collective(rt::CollectiveOp op, rt::LaneMask mask, T value, int arg, int width, unsigned line)
{
    rt::collective_arrive(op, mask, &value, sizeof value, arg, width, kFile, line);
    rt::wait_turn();
    T out{};
    rt::collective_take(&out, sizeof out);
    return out;
}

// The whole warp's mask at either width.
rt::LaneMask full_warp(unsigned width) { return width == 64 ? rt::LaneMask::wide(~0ull) : rt::LaneMask(0xFFFFFFFFu); }

class RuntimeWarpWidthSchedules : public ::testing::TestWithParam<Schedule> {};

TEST(RuntimeWarpWidth, OnlyWarpsOf32Or64LanesLaunch)
{
    // 48 and 16 lanes are not warps the emulator models: a one-line
    // LaunchError before anything runs. 32 and 64 launch.
    for (unsigned width : {48u, 16u, 0u, 128u}) {
        Emulator emu;
        emu.options.warp_width = width;
        bool ran = false;
        try {
            run_block(emu, 32, [&](unsigned) { ran = true; });
            ADD_FAILURE() << "warp width " << width << " launched";
        } catch (const LaunchError& e) {
            EXPECT_EQ(std::string(e.what()), "invalid warp width " + std::to_string(width) + ": a warp has 32 or 64 lanes");
        }
        EXPECT_FALSE(ran);
    }
    for (unsigned width : {32u, 64u}) {
        Emulator emu;
        emu.options.warp_width = width;
        unsigned ran = 0;
        run_block(emu, 32, [&](unsigned) { ++ran; });
        EXPECT_EQ(ran, 32u);
    }
}

TEST(RuntimeWarpWidth, NumbersTheLanesAndWarpsOfA96ThreadBlock)
{
    // 96 threads: at 64, warp 0 holds threads 0-63 and warp 1 threads 64-95
    // (lanes 0-31 of a partial warp); at 32, three full warps. Thread 70 is
    // lane 6 of warp 1 at 64 (70 - 64) and lane 6 of warp 2 at 32 (70 - 64).
    struct Expect {
        unsigned thread, warp64, lane64, warp32, lane32;
    };
    const Expect cases[] = {{0, 0, 0, 0, 0},    {31, 0, 31, 0, 31}, {32, 0, 32, 1, 0},  {63, 0, 63, 1, 31},
                            {64, 1, 0, 2, 0},   {70, 1, 6, 2, 6},   {95, 1, 31, 2, 31}};
    for (unsigned width : {32u, 64u}) {
        Emulator emu;
        emu.options.warp_width = width;
        std::vector<rt::LaneInfo> seen(96);
        run_block(emu, 96, [&](unsigned t) { seen[t] = rt::current_lane(); });
        for (const Expect& e : cases) {
            SCOPED_TRACE("thread " + std::to_string(e.thread) + " at width " + std::to_string(width));
            EXPECT_EQ(seen[e.thread].warp, width == 64 ? e.warp64 : e.warp32);
            EXPECT_EQ(seen[e.thread].lane, width == 64 ? e.lane64 : e.lane32);
        }
    }
    // A fault names the thread's warp and lane at the launch's width.
    for (unsigned width : {32u, 64u}) {
        Emulator emu;
        emu.options.warp_width = width;
        try {
            run_block(emu, 96, [](unsigned t) {
                if (t == 70) rt::kernel_fault(kFile, 7, "stopped here");
            });
            ADD_FAILURE() << "no fault";
        } catch (const KernelFault& f) {
            EXPECT_EQ(f.fault.warp, width == 64 ? 1u : 2u);
            EXPECT_EQ(f.fault.lane, 6u);
            EXPECT_NE(std::string(f.what()).find(width == 64 ? "[warp 1, lane 6]" : "[warp 2, lane 6]"), std::string::npos)
                << f.what();
        }
    }
}

// Each of 64 threads writes s[t] (s starts as zeros), meets the others at
// __syncwarp(), and reads s[t ^ 32]: its partner 32 lanes away. At 64 the
// partner is in the same warp and the __syncwarp orders the two accesses: no
// race, and thread t reads t ^ 32 (thread 5 reads 37, thread 40 reads 8). At
// 32 the partner is in the other warp, which no __syncwarp orders: a data race
// (found at the read, or at the partner's write when that comes second).
void run_exchange(Schedule schedule, unsigned width, bool syncwarp, std::vector<int>& got)
{
    Emulator emu;
    emu.options.warp_width = width;
    emu.options.schedule = schedule;
    got.assign(64, -1);
    run_block(emu, 64, [&](unsigned t) {
        int* s = static_cast<int*>(rt::declare_shared(4, 64, "s", kFile, 1, true));
        store(s, t, static_cast<int>(t), 10);
        if (syncwarp) collective<int>(rt::CollectiveOp::SyncWarp, full_warp(width), 0, 0, 32, 11);
        got[t] = load(s, t ^ 32, 12);
    });
}

TEST_P(RuntimeWarpWidthSchedules, AnExchangeAcrossLane32IsOrderedOnlyInA64LaneWarp)
{
    std::vector<int> got;
    run_exchange(GetParam(), 64, true, got);
    for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(got[t], static_cast<int>(t ^ 32)) << "thread " << t;
    EXPECT_EQ(got[5], 37);
    EXPECT_EQ(got[40], 8);
    try {
        run_exchange(GetParam(), 32, true, got);
        ADD_FAILURE() << "at width 32 the exchange crosses warps unordered, yet no race was reported";
    } catch (const KernelFault& f) {
        EXPECT_NE(std::string(f.what()).find("data race on shared memory: s["), std::string::npos) << f.what();
        EXPECT_TRUE(f.fault.line == 12u || f.fault.line == 10u) << f.what();
    }
}

TEST(RuntimeWarpWidth, WithoutTheSyncwarpTheExchangeRacesAt64Too)
{
    // Independent: nothing orders thread t's write of s[t] before thread
    // t ^ 32's read of it within the warp, so the same program less its
    // __syncwarp() is a race at 64 as well (Lockstep would order them by round).
    std::vector<int> got;
    EXPECT_THROW(run_exchange(Schedule::Independent, 64, false, got), KernelFault);
}

TEST_P(RuntimeWarpWidthSchedules, AShuffleReadsAcrossLane40)
{
    // Lane l holds 10 l + 1. __shfl_sync(all, v, 40, 64): every lane reads lane
    // 40, 401. __shfl_xor_sync(all, v, 40, 64): lane l reads lane l ^ 40, so
    // lane 0 gets 401, lane 40 gets 1, lane 63 gets 10 * 23 + 1 = 231 (63 ^ 40 = 23).
    Emulator emu;
    emu.options.warp_width = 64;
    emu.options.schedule = GetParam();
    std::vector<int> idx(64, -1), xr(64, -1);
    run_block(emu, 64, [&](unsigned t) {
        const int v = static_cast<int>(10 * t + 1);
        idx[t] = collective<int>(rt::CollectiveOp::ShflIdx, full_warp(64), v, 40, 64, 20);
        xr[t] = collective<int>(rt::CollectiveOp::ShflXor, full_warp(64), v, 40, 64, 21);
    });
    for (unsigned t = 0; t < 64; ++t) {
        EXPECT_EQ(idx[t], 401) << "lane " << t;
        EXPECT_EQ(xr[t], static_cast<int>(10 * (t ^ 40) + 1)) << "lane " << t;
    }
    EXPECT_EQ(xr[0], 401);
    EXPECT_EQ(xr[40], 1);
    EXPECT_EQ(xr[63], 231);
}

TEST(RuntimeWarpWidth, AShuffleSegmentWiderThanTheWarpIsRefused)
{
    // A segment of 64 lanes fits a 64-lane warp (above) but not a 32-lane one.
    Emulator emu;
    try {
        run_block(emu, 32, [](unsigned t) { collective<int>(rt::CollectiveOp::ShflIdx, 0xFFFFFFFFu, int(t), 0, 64, 30); });
        ADD_FAILURE() << "no fault";
    } catch (const KernelFault& f) {
        EXPECT_EQ(f.fault.what, "shuffle width must be a power of two up to 32");
    }
}

TEST(RuntimeWarpWidth, ABallotOfA64LaneWarpHas64Bits)
{
    // The odd lanes vote: 0xAAAA'AAAA'AAAA'AAAA for every lane at 64. The same
    // vote with PTX's 32-bit mask is refused there: which 32 lanes would it name?
    Emulator emu;
    emu.options.warp_width = 64;
    std::vector<std::uint64_t> ballot(64);
    run_block(emu, 64, [&](unsigned t) {
        ballot[t] = collective<std::uint64_t>(rt::CollectiveOp::Ballot, rt::LaneMask::wide(~0ull), t & 1, 0, 32, 40);
    });
    for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(ballot[t], 0xAAAA'AAAA'AAAA'AAAAull) << "lane " << t;
    try {
        run_block(emu, 64, [](unsigned t) { collective<unsigned>(rt::CollectiveOp::Ballot, 0xFFFFFFFFu, t & 1, 0, 32, 41); });
        ADD_FAILURE() << "a 32-bit mask ran in a 64-lane warp";
    } catch (const KernelFault& f) {
        EXPECT_EQ(f.fault.what, "__ballot_sync with the 32-bit mask 0xffffffff in a 64-lane warp: a 32-bit mask cannot "
                                "say which of the 64 lanes it names");
        EXPECT_EQ(f.fault.line, 41u);
    }
}

INSTANTIATE_TEST_SUITE_P(BothSchedules, RuntimeWarpWidthSchedules, ::testing::Values(Schedule::Independent, Schedule::Lockstep),
                         [](const auto& info) { return std::string(wl::emu::to_string(info.param)); });

}  // namespace
