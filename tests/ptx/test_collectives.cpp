// Warp collectives, block barriers with reductions, and dynamic shared memory,
// under both schedules.
#include <algorithm>

#include "ptx_test_util.h"
#include "tests/fault_of.h"

namespace {

using warplab::test::fault_of;
using wl::ptx::testing::compile_module;

const char* kWarp = R"(
__global__ void warp_ops(const int* in, int* out)
{
    const unsigned t = threadIdx.x, lane = t % 32;
    const int v = in[t];
    int* o = out + t * 16;
    o[0] = __shfl_sync(~0u, v, 3);             // lane 3 of the warp
    o[1] = __shfl_sync(~0u, v, lane + 1, 8);   // next lane inside each group of 8, wrapping
    o[2] = __shfl_up_sync(~0u, v, 2, 16);      // two lanes up inside each 16; the first two keep their own
    o[3] = __shfl_down_sync(~0u, v, 4);        // four lanes down; the last four keep their own
    o[4] = __shfl_xor_sync(~0u, v, 1);         // the pair partner
    o[5] = __ballot_sync(~0u, v % 2);          // odd values
    o[6] = __any_sync(~0u, v == 5);
    o[7] = __all_sync(~0u, v >= 0);
    o[8] = __match_any_sync(~0u, v / 4);       // lanes whose v / 4 agrees
    int pred;
    o[9] = __match_all_sync(~0u, v / 100, &pred);
    o[10] = pred;
    o[11] = __reduce_add_sync(~0u, v);
    o[12] = __reduce_min_sync(~0u, (int)v - 40);
    o[13] = __reduce_max_sync(~0u, (unsigned)v);
    o[14] = __reduce_or_sync(~0u, 1u << (v % 8));
    if (lane < 20) o[15] = __activemask();
    __syncwarp();
}

__global__ void block_ops(const int* in, int* out)
{
    const int v = in[threadIdx.x];
    const int count = __syncthreads_count(v > 10);
    const int all = __syncthreads_and(v >= 0);
    const int any = __syncthreads_or(v == 7);
    if (threadIdx.x == 0) { out[0] = count; out[1] = all; out[2] = any; }
}

__global__ void dynamic_shared(int* out)
{
    extern __shared__ int dyn[];
    dyn[threadIdx.x] = threadIdx.x * 3;
    __syncthreads();
    out[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}
)";

class Collectives : public ::testing::TestWithParam<wl::emu::Schedule> {};

TEST_P(Collectives, WarpShufflesVotesMatchesAndReductions)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kWarp);
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    const unsigned n = 64;
    int* in = emu.alloc<int>(n);
    int vals[64];
    for (unsigned t = 0; t < n; ++t) in[t] = vals[t] = static_cast<int>((t * 7 + 3) % 50);  // 3, 10, 17, ...
    int* out = emu.alloc<int>(n * 16);
    for (unsigned i = 0; i < n * 16; ++i) out[i] = -1;
    wl::ptx::launch(emu, m, "warp_ops", dim3(1), dim3(n), 0, in, out);
    for (unsigned t = 0; t < n; ++t) {
        const unsigned w = t / 32 * 32, lane = t % 32;
        const int* o = out + t * 16;
        auto at = [&](unsigned l) { return vals[w + l]; };
        unsigned ballot = 0, any = 0, all = 1, match = 0, orred = 0;
        int sum = 0, mn = 1 << 30, mx = 0;
        for (unsigned l = 0; l < 32; ++l) {
            ballot |= static_cast<unsigned>(at(l) % 2) << l;
            any |= at(l) == 5;
            all &= at(l) >= 0;
            if (at(l) / 4 == at(lane) / 4) match |= 1u << l;
            sum += at(l);
            mn = std::min(mn, at(l) - 40);
            mx = std::max(mx, at(l));
            orred |= 1u << (at(l) % 8);
        }
        EXPECT_EQ(o[0], at(3)) << t;
        EXPECT_EQ(o[1], at(lane / 8 * 8 + (lane + 1) % 8)) << t;
        EXPECT_EQ(o[2], lane % 16 >= 2 ? at(lane - 2) : at(lane)) << t;
        EXPECT_EQ(o[3], lane + 4 < 32 ? at(lane + 4) : at(lane)) << t;
        EXPECT_EQ(o[4], at(lane ^ 1)) << t;
        EXPECT_EQ(static_cast<unsigned>(o[5]), ballot) << t;
        EXPECT_EQ(o[6], static_cast<int>(any)) << t;
        EXPECT_EQ(o[7], static_cast<int>(all)) << t;
        EXPECT_EQ(static_cast<unsigned>(o[8]), match) << t;
        EXPECT_EQ(static_cast<unsigned>(o[9]), ~0u) << t;  // every value is below 100: all agree
        EXPECT_EQ(o[10], 1) << t;
        EXPECT_EQ(o[11], sum) << t;
        EXPECT_EQ(o[12], mn) << t;
        EXPECT_EQ(o[13], mx) << t;
        EXPECT_EQ(static_cast<unsigned>(o[14]), orred) << t;
        // __activemask() inside `if (lane < 20)`: the 20 lanes that took the branch, not the others
        if (lane < 20) EXPECT_EQ(static_cast<unsigned>(o[15]), 0xFFFFFu) << t;
    }
    unsigned shuffles = 0, votes = 0, syncwarps = 0;
    for (const auto& r : emu.take_records()) {
        shuffles += r.kind == wl::trace::Kind::Shuffle;
        votes += r.kind == wl::trace::Kind::Vote;
        syncwarps += r.kind == wl::trace::Kind::SyncWarp;
    }
    EXPECT_EQ(shuffles, 5u * n);
    EXPECT_EQ(votes, 9u * n);  // ballot, any, all, match.any, match.all, and the add, min, max, or reductions
    EXPECT_EQ(syncwarps, n);
}

TEST_P(Collectives, SyncthreadsCountAndOr)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kWarp);
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    const unsigned n = 100;  // four warps, the last one partial
    int* in = emu.alloc<int>(n);
    for (unsigned t = 0; t < n; ++t) in[t] = static_cast<int>(t % 20);  // > 10 for 9 of every 20: 45
    int* out = emu.alloc<int>(3);
    wl::ptx::launch(emu, m, "block_ops", dim3(1), dim3(n), 0, in, out);
    EXPECT_EQ(out[0], 45);
    EXPECT_EQ(out[1], 1);
    EXPECT_EQ(out[2], 1);
    in[37] = -1;
    for (unsigned t = 0; t < n; ++t) in[t] = t == 37 ? -1 : 0;
    wl::ptx::launch(emu, m, "block_ops", dim3(1), dim3(n), 0, in, out);
    EXPECT_EQ(out[0], 0);
    EXPECT_EQ(out[1], 0);  // thread 37 is negative
    EXPECT_EQ(out[2], 0);
}

TEST_P(Collectives, DynamicSharedMemoryIsDeclaredWithTheLaunchSize)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = compile_module(kWarp);
    wl::emu::Emulator emu;
    emu.options.schedule = GetParam();
    const unsigned n = 48;
    int* out = emu.alloc<int>(n);
    wl::ptx::launch(emu, m, "dynamic_shared", dim3(2), dim3(n), n * 4, out);
    for (unsigned t = 0; t < n; ++t) EXPECT_EQ(out[t], static_cast<int>((n - 1 - t) * 3)) << t;
    bool declared = false;
    for (const auto& r : emu.take_records())
        if (r.kind == wl::trace::Kind::Declare) {
            declared = true;
            EXPECT_STREQ(reinterpret_cast<const char*>(r.value), "dyn");
            EXPECT_EQ(r.size, 4u);
            EXPECT_EQ(r.offset, n);
        }
    EXPECT_TRUE(declared);
    // too little dynamic memory for the kernel's accesses: an out-of-bounds shared store
    const auto f = fault_of([&] { wl::ptx::launch(emu, m, "dynamic_shared", dim3(1), dim3(n), 16 * 4, out); });
    ASSERT_TRUE(f);
    const std::string what = f->what();
    EXPECT_NE(what.find("out-of-bounds shared store: dyn["), std::string::npos) << what;
    EXPECT_NE(what.find("] is outside its 16 elements"), std::string::npos) << what;
    EXPECT_GE(f->fault.thread.x, 16u);
}

INSTANTIATE_TEST_SUITE_P(Schedules, Collectives,
                         ::testing::Values(wl::emu::Schedule::Independent, wl::emu::Schedule::Lockstep),
                         [](const auto& info) { return std::string(wl::emu::to_string(info.param)); });

}  // namespace
