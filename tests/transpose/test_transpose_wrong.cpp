// Wrong programs fail. Each kernel in tests/transpose/wrong/ runs in place of
// v3 (same parameters, same 32×32 launch) through the lab's own --file path,
// and the lab's checks must catch it:
//   no_bounds_check.cu    on 33×70 the edge blocks read past `in`: a fault
//                         naming the out-of-bounds global access and its line;
//   copies.cu             out[y][x] = in[y][x]: the result check fails;
//   whole_tiles_only.cu   skips the partial tiles (does less than asked): on
//                         33×70 the result check fails, though no access faults;
//   padded_rows.cu        right result, padding on the wrong dimension: the
//                         column read of the tile stays 32-way, so the
//                         metric v3 is held to (1-way) fails.
// Two run in place of v5 beyond L2, where it takes 64-row tiles:
//   tall_first_piece_only.cu  writes only the first 32 rows of each tile
//                             (does less than asked): the result check fails;
//   tall_pieces_outer.cu      right, written differently: it passes.
// nvcc compiles them at test time; without it each test skips, saying why.
#include "labs/transpose/problem.h"
#include "transpose_test.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace warplab::test {
namespace {

#define REQUIRE_NVCC()                                                                \
    do {                                                                              \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc (the CUDA toolkit)"; \
    } while (0)

std::string wrong_kernel(const std::string& name) { return std::string(WARPLAB_SOURCE_DIR) + "/tests/transpose/wrong/" + name; }

RunRequest in_place_of_v3(const std::string& file, std::vector<std::size_t> shape)
{
    RunRequest req = cpu_request("v3", std::move(shape));
    req.file = wrong_kernel(file);
    req.kernel = "transpose_padded";
    return req;
}

// 33×70: 3×2 blocks of 32×32; the last block row holds row 32 only, the last
// block column columns 64..69. Block (0, 1) reads in[y][x] for y up to 63,
// past the 33·70 = 2310 elements of `in`; block (2, 0) writes out[64..95][..],
// past the 70 rows of `out`. Which fault comes first depends on the order the
// blocks run in; either is an out-of-bounds access of this file.
TEST(TransposeWrong, AMissingBoundsCheckFaults)
{
    REQUIRE_NVCC();
    try {
        transpose_lab().run(in_place_of_v3("no_bounds_check.cu", {33, 70}));
        ADD_FAILURE() << "ran past the end of the matrix without a fault";
    } catch (const wl::emu::KernelFault& f) {
        const std::string message = f.what();
        EXPECT_NE(message.find("out-of-bounds"), std::string::npos) << message;
        EXPECT_NE(message.find("no_bounds_check.cu"), std::string::npos) << message;
    }
    // The same kernel on whole tiles does no harm: the fault is the edge's.
    EXPECT_TRUE(transpose_lab().run(in_place_of_v3("no_bounds_check.cu", {64, 96})).ok);
}

TEST(TransposeWrong, ACopyFailsTheResultCheck)
{
    REQUIRE_NVCC();
    for (const std::vector<std::size_t>& shape : {std::vector<std::size_t>{33, 70}, std::vector<std::size_t>{64, 64}}) {
        const RunResult r = transpose_lab().run(in_place_of_v3("copies.cu", shape));
        EXPECT_FALSE(r.ok) << r.check;
        EXPECT_NE(r.check.find("wrong"), std::string::npos) << r.check;
    }
}

// 33×70 has 2 whole tiles (rows 0-31, columns 0-63) of its 6: 2048 of the
// 2310 elements are written; 262 stay NaN.
TEST(TransposeWrong, SkippingPartialTilesFailsTheResultCheck)
{
    REQUIRE_NVCC();
    const RunResult r = transpose_lab().run(in_place_of_v3("whole_tiles_only.cu", {33, 70}));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.check.find("262 of 2310 elements wrong"), std::string::npos) << r.check;
}

// tile[33][32]: word (r, c) = 32r + c, bank c. The read tile[lane][w] is
// bank w for all 32 lanes: 32-way, as in v2.
TEST(TransposeWrong, PaddingTheWrongDimensionKeepsTheConflict)
{
    REQUIRE_NVCC();
    const TracedRun run = trace_version(transpose_lab(), in_place_of_v3("padded_rows.cu", {}));
    EXPECT_TRUE(run.result.ok) << run.result.check;
    ASSERT_EQ(run.steps.size(), 2u);
    EXPECT_EQ(run.steps[1].shared_load.worst_ways, 32.0) << "v3's check (1-way) would fail";
    EXPECT_EQ(run.steps[1].shared_load.wavefronts, 1024u);
}

RunRequest in_place_of_v5(const std::string& file)
{
    // 2560×2592: 53 MB of in + out, beyond v5's 50 MiB: 64×32 tiles, 40 × 81 blocks.
    RunRequest req = cpu_request("v5", {2560, 2592});
    req.file = wrong_kernel(file);
    req.kernel = "transpose_tall_tiles";
    req.record = false;
    return req;
}

// Out is 2592×2560; each block writes columns 64·by … 64·by + 31 of its rows
// and leaves the next 32: 2592 rows × 40 tiles × 32 = 3,317,760 of the
// 6,635,520 elements stay NaN.
TEST(TransposeWrong, TallTilesWithOnlyTheFirstPieceFailTheResultCheck)
{
    REQUIRE_NVCC();
    const RunResult r = transpose_lab().run(in_place_of_v5("tall_first_piece_only.cu"));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.check.find("3317760 of 6635520 elements wrong"), std::string::npos) << r.check;
    EXPECT_TRUE(transpose_lab().run(in_place_of_v5("tall_pieces_outer.cu")).ok);
}

}  // namespace
}  // namespace warplab::test
