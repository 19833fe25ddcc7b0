// Static 2D shared arrays side by side, padded and not, of different element
// types: every access lands in the array it names (an address nvcc computes
// through a register below zero included), and a read past the end is still
// reported with its kernel, block, thread and line.
#include "corpus/corpus_test.h"

namespace warplab::test {
namespace {

using SharedArrays = CorpusScheduleTest;
INSTANTIATE_TEST_SUITE_P(BothSchedules, SharedArrays, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

constexpr int kTile = 16, kSide = kTile + 1, kPenalty = 10, kBlocks = 3;

// Needleman–Wunsch by hand: cell (y, x) = max(nw + ref[y-1][x-1], w - penalty,
// n - penalty), row 0 and column 0 given.
std::vector<int> aligned_tiles(std::vector<int> score, const std::vector<int>& reference)
{
    for (int b = 0; b < kBlocks; ++b) {
        int* s = score.data() + b * kSide * kSide;
        const int* r = reference.data() + b * kTile * kTile;
        for (int y = 1; y < kSide; ++y)
            for (int x = 1; x < kSide; ++x)
                s[y * kSide + x] = std::max({s[(y - 1) * kSide + x - 1] + r[(y - 1) * kTile + x - 1],
                                             s[y * kSide + x - 1] - kPenalty, s[(y - 1) * kSide + x] - kPenalty});
    }
    return score;
}

// Row 0 and column 0 of each block's 17 x 17 matrix: seeded, as the
// benchmark's gap penalties would be; the rest zero.
std::vector<int> first_row_and_column(std::uint64_t seed)
{
    const auto edges = seeded_ints<int>(kBlocks * 2 * kSide, -200, 0, seed);
    std::vector<int> score(kBlocks * kSide * kSide, 0);
    for (int b = 0; b < kBlocks; ++b)
        for (int i = 0; i < kSide; ++i) {
            score[b * kSide * kSide + i] = edges[b * 2 * kSide + i];
            score[b * kSide * kSide + i * kSide] = edges[b * 2 * kSide + kSide + i];
        }
    return score;
}

TEST_P(SharedArrays, APaddedScoreTileBesideItsReferenceTileAlignsWithoutAFault)
{
    // temp[17][17] (1156 bytes) beside ref[16][16]: thread 1 reads temp[0][1]
    // through a register that holds temp - 64 plus 68 (nvcc's strength-reduced
    // anti-diagonal), which must wrap as the GPU's 32-bit shared address does.
    const auto score = first_row_and_column(4201);
    const auto reference = seeded_ints<int>(kBlocks * kTile * kTile, -5, 10, 4202);
    int* d_score = to_device(emu, score);
    int* d_reference = to_device(emu, reference);
    ASSERT_NO_THROW(run_corpus(emu, "sequence_alignment.cu", "nw_tile", dim3(kBlocks), dim3(kTile), 0, d_score,
                               d_reference, kPenalty));
    EXPECT_EQ(to_host(emu, d_score, score.size()), aligned_tiles(score, reference));
    EXPECT_TRUE(emu.take_warnings().empty());
}

TEST_P(SharedArrays, AReadOnePastTheReferenceTileIsReportedWhereItReads)
{
    // The overrun reads ref[y][x - 1]: thread 0 on the last anti-diagonal
    // (m = 15, y = 16, x = 1) reads ref[16][0], element 16 * 16 = 256 of 256,
    // in whichever block runs first.
    const auto score = first_row_and_column(4203);
    const auto reference = seeded_ints<int>(kBlocks * kTile * kTile, -5, 10, 4204);
    int* d_score = to_device(emu, score);
    int* d_reference = to_device(emu, reference);
    auto f = fault_of([&] {
        run_corpus(emu, "sequence_alignment.cu", "nw_tile_overrun", dim3(kBlocks), dim3(kTile), 0, d_score,
                   d_reference, kPenalty);
    });
    ASSERT_TRUE(f);
    expect_report(*f, {"nw_tile_overrun", f->fault.block, uint3{0, 0, 0}, project_file(corpus_path("sequence_alignment.cu")),
                       "marker: overrun", {"out-of-bounds shared load", "ref[256] is outside its 256 elements"}});
}

TEST_P(SharedArrays, EveryEdgeOfThreeArraysOfDifferentTypesReadsWhatWasStored)
{
    // char flags[3][5], short halves[5][10] (9 columns used), double sums[3][3];
    // thread t < 9 writes 12 values (sequence_alignment.cu's array_edges says which).
    const auto in = seeded_ints<int>(45, 0, 1000, 4205);
    int* d_in = to_device(emu, in);
    int* d_out = zeros<int>(emu, 9 * 12);
    ASSERT_NO_THROW(run_corpus(emu, "sequence_alignment.cu", "array_edges", dim3(1), dim3(32), 0, d_in, d_out));
    const auto got = to_host(emu, d_out, 9 * 12);
    for (int t = 0; t < 9; ++t) {
        SCOPED_TRACE("thread " + std::to_string(t));
        const int flag_first = in[0] & 0x7f, flag_last = in[14] & 0x7f, half_row_end = in[(t % 5) * 9 + 8] - 100;
        const std::vector<int> expected{flag_first,   flag_last,        in[9] & 0x7f,  in[0] - 100,
                                        in[44] - 100, half_row_end,     in[0],         in[8],
                                        in[(t % 3) * 3 + 2], half_row_end, in[8],      flag_last};
        EXPECT_EQ(std::vector<int>(got.begin() + 12 * t, got.begin() + 12 * t + 12), expected);
    }
}

TEST_P(SharedArrays, AHaloTileBesideNarrowWeightsAndAnExternArrayReadsItsNeighbours)
{
    // halo_tiles.cu: out[i] = sum over k in -3..3 of w[k + 3] * in[i + k], in
    // zero outside [0, 200); 200 = 3 blocks of 64 and 8 in the fourth.
    constexpr int n = 200, radius = 3;
    const auto in = seeded_ints<int>(n, -100, 100, 4206);
    const auto weights = seeded_ints<int>(2 * radius + 1, -4, 4, 4207);
    int* d_in = to_device(emu, in);
    int* d_out = zeros<int>(emu, n);
    ASSERT_NO_THROW(run_corpus(emu, "halo_tiles.cu", "halo_blur", dim3(4), dim3(64), 64 * sizeof(int), d_in, d_out, n,
                               to_device(emu, weights)));
    const auto got = to_host(emu, d_out, n);
    for (int i = 0; i < n; ++i) {
        int sum = 0;
        for (int k = -radius; k <= radius; ++k)
            if (i + k >= 0 && i + k < n) sum += weights[k + radius] * in[i + k];
        EXPECT_EQ(got[i], sum) << "out[" << i << "]";
    }
}

}  // namespace
}  // namespace warplab::test
