// Wrong programs fail; a right one written differently passes. Each kernel in
// tests/image/wrong/ runs in place of v2 (same parameters, 16×16 groups)
// through the lab's --file path; the lab's own later pass finishes the sum.
//   one_group.cu      every group sums tile (0, 0): the partials check fails
//                     at the first other tile, (1, 0);
//   serial_loop.cu    one thread adds every pixel, the right total, into
//                     partial 0 and 0 elsewhere: the total passes, partial
//                     (0, 0) fails (it holds all six tiles' sums, not one);
//   warp_atomics.cu   shuffles and a shared atomicAdd: right.
// nvcc compiles them at test time; without it each test skips, saying why.
#include "image_test.h"
#include "warplab/ptx/ptx.h"

namespace warplab::test {
namespace {

#define REQUIRE_NVCC()                                                                     \
    do {                                                                                   \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc (the CUDA toolkit)"; \
    } while (0)

RunResult in_place_of_v2(const std::string& file)
{
    RunRequest req = cpu_request("v2", {37, 23}, 9);  // 3×2 groups
    req.file = std::string(WARPLAB_SOURCE_DIR) + "/tests/image/wrong/" + file;
    req.kernel = "image_sequential";
    return image_lab().run(req);
}

TEST(ImageWrong, OneGroupsTileEverywhereFails)
{
    REQUIRE_NVCC();
    const RunResult r = in_place_of_v2("one_group.cu");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.check.find("partial (1, 0) of the first pass"), std::string::npos) << r.check;
}

TEST(ImageWrong, ASerialLoopInOneGroupFailsThePartialsNotTheTotal)
{
    REQUIRE_NVCC();
    const RunResult r = in_place_of_v2("serial_loop.cu");
    EXPECT_FALSE(r.ok);
    EXPECT_NEAR(r.value, r.expected, 1e-5 * r.expected);  // the total is right
    EXPECT_NE(r.check.find("partial (0, 0) of the first pass is"), std::string::npos) << r.check;
}

TEST(ImageWrong, WarpShufflesAndASharedAtomicPass)
{
    REQUIRE_NVCC();
    const RunResult r = in_place_of_v2("warp_atomics.cu");
    EXPECT_TRUE(r.ok) << r.check;
}

}  // namespace
}  // namespace warplab::test
