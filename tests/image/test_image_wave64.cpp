// v3-wave64, the AMD blog's barrier-free tail: `if (tid < 64)` adds offsets
// 32..1 through volatile shared memory with no barrier. With 256 threads the
// barriers fold the values to 64 (sdata[0..63]); then thread 0 reads
// sdata[32] in its first step while thread 32 writes sdata[32] (its own
// first step).
//  - warp width 64, lockstep: threads 0..63 are one wavefront whose lanes
//    interleave at every access: every lane loads sdata[tid] and
//    sdata[tid + 32] before any lane stores, so each step reads the values
//    of the step before: right.
//  - warp width 32: threads 0..31 and 32..63 are two warps, with no barrier
//    between them: thread 32's store to sdata[32] and thread 0's load of it
//    are a data race (a fault) under either schedule.
//  - warp width 64, independent: the lanes of the one wavefront run in any
//    order between synchronisations, and there is none: a race again.
#include "image_test.h"
#include "warplab/emu/emulator.h"

namespace warplab::test {
namespace {

RunRequest wave64(unsigned warp_width, Schedule schedule)
{
    RunRequest req = cpu_request("v3-wave64", {37, 23}, 3);
    req.warp_width = warp_width;
    req.schedule = schedule;
    return req;
}

TEST(ImageWave64, RightOnALockstepWavefrontOf64)
{
    const RunResult r = image_lab().run(wave64(64, Schedule::Lockstep));
    EXPECT_TRUE(r.ok) << r.check;
    EXPECT_EQ(r.warp_width, 64u);
}

// At 32 under either schedule; at 64 under the independent one, where even
// one wavefront's lanes run in any order between synchronisations.
TEST(ImageWave64, ARaceOnWarpsOf32AndOnAnIndependentWavefront)
{
    for (const auto& [width, s] : {std::pair{32u, Schedule::Lockstep}, {32u, Schedule::Independent}, {64u, Schedule::Independent}}) {
        try {
            const RunResult r = image_lab().run(wave64(width, s));
            ADD_FAILURE() << "no race reported at " << width << " under " << wl::emu::to_string(s) << "; " << r.check;
        } catch (const wl::emu::KernelFault& f) {
            const std::string message = f.what();
            EXPECT_NE(message.find("data race"), std::string::npos) << message;
            EXPECT_NE(message.find("03_unrolled_tail_wave64.cuh"), std::string::npos) << message;
        }
    }
}

// The same lab's v3 (a 32-wide tail of shuffles) is right at width 32 under both schedules.
TEST(ImageWave64, V3IsRightOnWarpsOf32)
{
    for (Schedule s : {Schedule::Lockstep, Schedule::Independent}) {
        RunRequest req = wave64(32, s);
        req.version = "v3";
        EXPECT_TRUE(image_lab().run(req).ok) << wl::emu::to_string(s);
    }
}

}  // namespace
}  // namespace warplab::test
