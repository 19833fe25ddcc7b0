// Every registered transpose version puts every element in its place on the
// emulator, for shapes no tile divides: 1×1, a single column (100×1) and a
// single row (1×100), 33×70 (one past a 32-tile down, 6 past up to 70 across),
// 65×97 and 200×33, and whole tiles (64×64, 128×96). The version list comes
// from the lab registry, never from here.
//
// "In its place" is the lab's own check (labs/transpose/problem.h): out starts
// as NaN, and every out[c][r] must equal in[r][c] bit for bit; the inputs are
// distinct seeded floats in [-1, 1), so a swapped, missing or duplicated
// element shows. The check itself is tested last: it must catch a copy, a
// single swapped pair and an element left unwritten.
#include <cmath>
#include <limits>

#include "labs/transpose/problem.h"
#include "transpose_test.h"

namespace warplab::test {
namespace {

struct Case {
    std::string version;
    std::vector<std::size_t> shape;
    std::uint64_t seed;
    Schedule schedule;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info)
{
    const Case& c = info.param;
    return c.version + "_" + std::to_string(c.shape[0]) + "x" + std::to_string(c.shape[1]) + "_seed" + std::to_string(c.seed) +
           (c.schedule == Schedule::Lockstep ? "_lockstep" : "");
}

const std::vector<std::vector<std::size_t>> kShapes = {{1, 1},   {100, 1}, {1, 100}, {33, 70},
                                                       {65, 97}, {200, 33}, {64, 64}, {128, 96}};

std::vector<Case> all_cases()
{
    std::vector<Case> out;
    for (const std::string& v : version_ids())
        for (const auto& shape : kShapes) {
            for (std::uint64_t seed : {1, 2}) out.push_back({v, shape, seed, Schedule::Independent});
            out.push_back({v, shape, 3, Schedule::Lockstep});
        }
    return out;
}

class TransposeCorrect : public ::testing::TestWithParam<Case> {};

TEST_P(TransposeCorrect, MatchesTheCpuTranspose)
{
    const Case& c = GetParam();
    RunRequest req = cpu_request(c.version, c.shape, c.seed, c.schedule);
    req.record = false;
    const RunResult r = transpose_lab().run(req);
    EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
    EXPECT_EQ(r.shape, c.shape);
    // The sums agree too (the same elements, summed in the same order).
    EXPECT_EQ(r.value, r.expected);
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, TransposeCorrect, ::testing::ValuesIn(all_cases()), case_name);

// The ladder the walkthrough and the tests below assume: five versions in order.
TEST(TransposeRegistry, ListsTheLadderInOrder)
{
    EXPECT_EQ(version_ids(), (std::vector<std::string>{"v1", "v2", "v3", "v4", "v5"}));
    for (const auto& v : transpose_lab().versions) EXPECT_FALSE(v.variant) << v.id;
}

// The check must be able to fail. A 2×3 input [[a b c] [d e f]] transposes to
// [[a d] [b e] [c f]]: out = {a, d, b, e, c, f}.
// The shapes above all fit in L2, where v5 runs v4's 32×32 tiles. Its 64×32
// tiles run beyond 50 MiB of in + out: rows·cols > 6,553,600. 2561×2563 is
// 6,563,843 elements, odd both ways: 41 tile rows (the last holds 2561 - 40·64
// = 1 row) and 81 tile columns (the last 3 columns wide).
TEST(TransposeTallTiles, PutsEveryElementInPlaceBeyondL2)
{
    RunRequest req = cpu_request("v5", {2561, 2563}, 4);
    req.record = false;
    const RunResult r = transpose_lab().run(req);
    EXPECT_NE(r.problem.find("each a 64×32 tile"), std::string::npos) << r.problem;
    EXPECT_EQ(r.grid_dim, (std::vector<unsigned>{81, 41, 1}));
    EXPECT_TRUE(r.ok) << r.problem << ": " << r.check;
}

// The reference goes a 16x16 tile at a time: at 130x67 (nine tile rows, the
// last 2 high; five tile columns, the last 3 wide) every element still lands
// at out[c][r] = in[r][c], the edges' partial tiles included.
TEST(TransposeCheck, TheTiledReferenceMovesEveryElementAcrossPartialTiles)
{
    using namespace transpose;
    const Shape s{130, 67};
    const std::vector<float> in = make_input(s, 49);
    const std::vector<float> out = reference(s, in);
    ASSERT_EQ(out.size(), in.size());
    std::size_t misplaced = 0;
    for (std::size_t r = 0; r < s.rows; ++r)
        for (std::size_t c = 0; c < s.cols; ++c) misplaced += out[c * s.rows + r] != in[r * s.cols + c];
    EXPECT_EQ(misplaced, 0u);
}

TEST(TransposeCheck, CatchesACopyASwapAndAHole)
{
    using namespace transpose;
    const Shape s{2, 3};
    const std::vector<float> in = {1, 2, 3, 4, 5, 6};
    const std::vector<float> expected = reference(s, in);
    EXPECT_EQ(expected, (std::vector<float>{1, 4, 2, 5, 3, 6}));
    EXPECT_TRUE(compare(expected, expected).ok);

    const Comparison copied = compare(in, expected);  // {1 2 3 4 5 6}: only the first and last are in place
    EXPECT_FALSE(copied.ok);
    EXPECT_EQ(copied.bad, 4u);
    EXPECT_EQ(copied.first_bad, 1u);

    std::vector<float> swapped = expected;
    std::swap(swapped[2], swapped[3]);
    EXPECT_EQ(compare(swapped, expected).bad, 2u);

    std::vector<float> hole = expected;
    hole[5] = std::numeric_limits<float>::quiet_NaN();
    const Comparison missing = compare(hole, expected);
    EXPECT_EQ(missing.bad, 1u);
    EXPECT_EQ(missing.first_bad, 5u);
    // out[2][1] should hold in[1][2] = 6.
    EXPECT_NE(missing.text(s).find("out[2][1]"), std::string::npos) << missing.text(s);
    EXPECT_NE(missing.text(s).find("in[1][2]"), std::string::npos) << missing.text(s);
}

// Bad input: one sentence naming it, before anything runs.
TEST(TransposeInput, RefusesWhatTheKernelsCannotTake)
{
    auto refused = [](RunRequest req) {
        try {
            transpose_lab().run(req);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(refused(cpu_request("v9", {})).find("unknown transpose version"), std::string::npos);
    EXPECT_NE(refused(cpu_request("v1", {0, 5})).find("at least one row"), std::string::npos);
    EXPECT_NE(refused(cpu_request("v1", {1, 2, 3})).find("ROWS,COLS"), std::string::npos);
    EXPECT_NE(refused(cpu_request("v1", {std::size_t(1) << 16, std::size_t(1) << 16})).find("2^32"), std::string::npos);
    RunRequest wrong_block = cpu_request("v4", {});
    wrong_block.block = 1024;
    EXPECT_NE(refused(wrong_block).find("fixed by its tile"), std::string::npos);
    RunRequest ints = cpu_request("v1", {});
    ints.type = "int";
    EXPECT_NE(refused(ints).find("floats"), std::string::npos);
    RunRequest far_block = cpu_request("v1", {64, 64});
    far_block.watched_block = 4;  // 2×2 blocks of 32×32
    EXPECT_NE(refused(far_block).find("does not exist"), std::string::npos);
}

}  // namespace
}  // namespace warplab::test
