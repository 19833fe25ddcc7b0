// v12's launch shape (labs/matmul/versions.h, V12::k_pieces and grid): its
// tiles of C are 256×128 (BM × BN) with BK = 32. Where the tiles number under
// half the SMs, K is split into floor(SMs / tiles) pieces, at most one per
// k-tile; otherwise one piece. The kernel itself runs only on a GPU (sm_90a);
// the gpu tests check its C with K split (1000^3: 32 tiles, 4 pieces).
#include <gtest/gtest.h>

#include "labs/matmul/versions.h"

namespace {

using warplab::matmul::V12;

TEST(MatmulV12Pieces, SplitsKOnlyWhereTilesLeaveMostSmsIdle)
{
    // 1024^3: 4 × 8 = 32 tiles; 132 / 32 = 4 pieces of 32 / 4 = 8 k-tiles; grid 8 × 4 × 4 = 128 blocks.
    EXPECT_EQ(V12::k_pieces(1024, 1024, 1024, 132), 4u);
    const dim3 g = V12::grid(1024, 1024, 1024, 132);
    EXPECT_EQ(g.x, 8u);
    EXPECT_EQ(g.y, 4u);
    EXPECT_EQ(g.z, 4u);
    // 2048^3: 8 × 16 = 128 tiles; 132 / 128 = 1: no split. 4096^3: 512 tiles, none either.
    EXPECT_EQ(V12::k_pieces(2048, 2048, 2048, 132), 1u);
    EXPECT_EQ(V12::grid(4096, 4096, 4096, 132).z, 1u);
    // 300×500×77: ceil(300/256) × ceil(500/128) = 2 × 4 = 8 tiles; 132 / 8 = 16,
    // but K has only ceil(77/32) = 3 k-tiles: 3 pieces.
    EXPECT_EQ(V12::k_pieces(300, 500, 77, 132), 3u);
    // M = 1024, N = 2048: 4 × 16 = 64 tiles; 132 / 64 = 2 pieces; on 127 SMs 127 / 64 = 1.
    EXPECT_EQ(V12::k_pieces(1024, 2048, 4096, 132), 2u);
    EXPECT_EQ(V12::k_pieces(1024, 2048, 4096, 127), 1u);
    // More tiles than SMs: 8 tiles on 7 SMs.
    EXPECT_EQ(V12::k_pieces(300, 500, 77, 7), 1u);
}

}  // namespace
