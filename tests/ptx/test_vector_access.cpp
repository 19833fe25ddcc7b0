// Vector loads and stores (.v2, .v4 of 4-byte elements: float2, float4, int4)
// run on the interpreter's hot forms; they must check, record and compute
// what the general path does: the values element by element, a `_` element
// dropped, bounds faults in units of the whole vector, races on every word.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ptx_test_util.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace {

using wl::ptx::testing::ptx_module;

// What nvcc makes of
//   __global__ void swap_halves(const float4* in, float2* out, unsigned mask)
//   {
//       __shared__ float4 tile[64];
//       const unsigned t = threadIdx.x;
//       const float4 v = in[t];
//       tile[t] = make_float4(v.w, v.z, v.y, v.x);
//       __syncthreads();
//       const float mine = reinterpret_cast<float2*>(&tile[t])[1].x;  // v.y
//       const float4 n = tile[t ^ 1];                                  // the neighbour's, reversed
//       out[t & mask] = make_float2(mine + n.x, n.y - n.z);
//   }
// written out by hand (with a `_` where a vector's element is not used), so that no nvcc is needed.
const std::string kSwapHalves = ptx_module(R"(
.visible .entry swap_halves(.param .u64 in, .param .u64 out, .param .u32 mask)
{
	.reg .b32 %r<10>;
	.reg .f32 %f<12>;
	.reg .b64 %rd<8>;
	.shared .align 16 .b8 tile[1024];
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u32 %r9, [mask];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	cvt.u64.u32 %rd3, %r2;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];
	mov.u32 %r3, tile;
	add.s32 %r4, %r3, %r2;
	st.shared.v4.f32 [%r4], {%f4, %f3, %f2, %f1};
	bar.sync 0;
	ld.shared.v2.f32 {%f5, _}, [%r4+8];
	xor.b32 %r5, %r2, 16;
	add.s32 %r6, %r3, %r5;
	ld.shared.v4.f32 {%f6, %f7, %f8, _}, [%r6];
	add.f32 %f9, %f5, %f6;
	sub.f32 %f10, %f7, %f8;
	and.b32 %r7, %r1, %r9;
	mul.wide.u32 %rd5, %r7, 8;
	add.s64 %rd6, %rd2, %rd5;
	st.global.v2.f32 [%rd6], {%f9, %f10};
	ret;
}
)", "9.0");

constexpr unsigned kThreads = 64;

class VectorAccess : public ::testing::TestWithParam<wl::emu::Schedule> {
protected:
    VectorAccess() : module_(wl::ptx::Module::parse(kSwapHalves, "swap_halves.ptx"))
    {
        emu_.options.schedule = GetParam();
        in_ = emu_.alloc<float>(4 * kThreads);
        out_ = emu_.alloc<float>(2 * kThreads);
        for (unsigned k = 0; k < 4 * kThreads; ++k) in_[k] = static_cast<float>(k);
        std::memset(out_, 0, 2 * kThreads * sizeof(float));
    }
    void launch(unsigned threads, unsigned mask)
    {
        wl::ptx::launch(emu_, module_, "swap_halves", dim3(1), dim3(threads), 0, in_, out_, mask);
    }
    wl::ptx::Module module_;
    wl::emu::Emulator emu_;
    float* in_ = nullptr;
    float* out_ = nullptr;
};

TEST_P(VectorAccess, ElementsLandInTheirRegistersAndASinkDropsOne)
{
    launch(kThreads, kThreads - 1);
    for (unsigned t = 0; t < kThreads; ++t) {
        // Thread t loads in[4t .. 4t+3] and keeps them reversed in tile[t]:
        // {4t+3, 4t+2, 4t+1, 4t}. Its v2 load at byte 8 of its slot reads
        // 4t+1 (and drops 4t); u = t ^ 1's slot gives 4u+3, 4u+2, 4u+1.
        // out[t] = {(4t+1) + (4u+3), (4u+2) - (4u+1)} = {4t + 4u + 4, 1}.
        const unsigned u = t ^ 1;
        EXPECT_EQ(out_[2 * t], static_cast<float>(4 * t + 4 * u + 4)) << "thread " << t;
        EXPECT_EQ(out_[2 * t + 1], 1.0f) << "thread " << t;
    }
}

TEST_P(VectorAccess, AVectorPastTheEndIsOutOfBoundsInWholeVectors)
{
    // A 65th thread loads in[64] of 64 float4s (bytes 1024 .. 1039 of 1024).
    try {
        launch(kThreads + 1, kThreads - 1);
        FAIL() << "read past the input";
    } catch (const wl::emu::KernelFault& f) {
        const std::string what = f.what();
        EXPECT_NE(what.find("out-of-bounds load"), std::string::npos) << what;
        EXPECT_NE(what.find("[64] is outside its 64 elements (byte 1024 of 1024)"), std::string::npos) << what;
        EXPECT_EQ(f.fault.thread.x, kThreads);
    }
}

TEST_P(VectorAccess, TwoWarpsStoringOneVectorRace)
{
    // mask 31: thread t and t + 32 (another warp) store different float2s to
    // out[t]: nothing orders them, a race found on the vector's words.
    try {
        launch(kThreads, 31);
        FAIL() << "two warps wrote one element unordered";
    } catch (const wl::emu::KernelFault& f) {
        const std::string what = f.what();
        EXPECT_NE(what.find("data race on global memory"), std::string::npos) << what;
        EXPECT_NE(what.find("is written here and written by thread ("), std::string::npos) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Schedules, VectorAccess,
                         ::testing::Values(wl::emu::Schedule::Independent, wl::emu::Schedule::Lockstep),
                         [](const auto& info) { return std::string(wl::emu::to_string(info.param)); });

}  // namespace
