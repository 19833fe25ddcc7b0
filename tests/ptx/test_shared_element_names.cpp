// Faults name an element of a shared array of two or more dimensions as the
// source writes it (tile[2][5]), from the declaration wl::ptx::name_parameters
// reads (Module::shape_shared); where no declaration is known, or the index
// lies outside the array, they keep the flat index PTX gives (tile[21]).
#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "ptx_test_util.h"
#include "tests/fault_of.h"
#include "warplab/ptx/cuda_source.h"
#include "warplab/ptx/kernel_file.h"

namespace {

using warplab::test::fault_of;

// Each kernel leaves one element unwritten and has thread 0 read it after the
// barrier (an uninitialised read, whatever the schedule), or reads one row past.
const char* const kSource = R"(
#define W 4
#define BM 2
#define BK 6

// 3 x 8, flat 2 * 8 + 5 = 21 unwritten.
__global__ void literal_bounds(float* out)
{
    __shared__ float tile[3][8];
    if (!(threadIdx.y == 2 && threadIdx.x == 5)) tile[threadIdx.y][threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) out[0] = tile[2][5];
}

// 2 x 3 x 4, flat 1 * 12 + 2 * 4 + 3 = 23 unwritten.
__global__ void three_dimensions(int* out)
{
    __shared__ int cube[2][3][4];
    const unsigned x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    if (!(z == 1 && y == 2 && x == 3)) cube[z][y][x] = x + y + z;
    __syncthreads();
    if (x == 0 && y == 0 && z == 0) out[0] = cube[1][2][3];
}

// TILE x TILE, bounds written alike: with TILE = 4, 16 elements, so 4 x 4; flat 3 * 4 + 1 = 13 unwritten.
template <int TILE>
__global__ void square(float* out)
{
    __shared__ float s[TILE][TILE];
    if (!(threadIdx.y == 3 && threadIdx.x == 1)) s[threadIdx.y][threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) out[0] = s[3][1];
}
template __global__ void square<4>(float*);

// W x (W + 1), bounds of one name: 20 elements make W = 4, so 4 x 5; flat 1 * 5 + 2 = 7 unwritten.
__global__ void padded_macro(float* out)
{
    __shared__ float padded[W][W + 1];
    if (!(threadIdx.y == 1 && threadIdx.x == 2)) padded[threadIdx.y][threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) out[0] = padded[1][2];
}

// BM x BK, two names: their values unknown, so flat 1 * 6 + 2 = 8.
__global__ void two_names(float* out)
{
    __shared__ float As[BM][BK];
    if (!(threadIdx.y == 1 && threadIdx.x == 2)) As[threadIdx.y][threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) out[0] = As[1][2];
}

// One dimension: line[9] as before.
__global__ void one_dimension(float* out)
{
    __shared__ float line[16];
    if (threadIdx.x != 9) line[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = line[9];
}

// An off-by-one row: grid[row][threadIdx.x] with row = 4 of a 4 x 4 array is
// flat 16 + x, past the end (no element of it has row 4).
__global__ void row_past_end(float* out, int row)
{
    __shared__ float grid[4][4];
    grid[threadIdx.y][threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.y == 0 && threadIdx.x == 0) out[0] = grid[row][threadIdx.x];
}

// Row 0 of a 2 x 32 array: warp 0 rewrites it while warp 1 reads it, with no
// barrier between (a data race on t[0][x], whichever warp runs first).
__global__ void rows_race(float* out)
{
    __shared__ float t[2][32];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    t[warp][lane] = 0.0f;
    __syncthreads();
    if (warp == 0) t[0][lane] = 1.0f;
    else out[0] = t[0][lane];  // missing: a __syncthreads() before this read
}
)";

class SharedElementNames : public ::testing::Test {
protected:
    void SetUp() override
    {
        WL_SKIP_WITHOUT_NVCC();
        module_.emplace(wl::ptx::testing::compile_module(kSource, "element_names.cu"));
    }
    void declare() { wl::ptx::name_parameters(*module_, kSource); }
    // The fault's message of a launch of `kernel` with one block of `block` threads.
    template <class... Args> std::string fault(const char* kernel, dim3 block, Args... args)
    {
        float* out = emu_.alloc<float>(1);
        const auto f = fault_of([&] { wl::ptx::launch(emu_, *module_, kernel, dim3(1), block, 0, out, args...); });
        return f ? std::string(f->what()) : "";
    }

    wl::emu::Emulator emu_;
    std::optional<wl::ptx::Module> module_;
};

constexpr const char* kUnwritten = "read of uninitialised shared memory: ";

TEST_F(SharedElementNames, TwoDimensionsAsDeclared)
{
    declare();
    const std::string what = fault("literal_bounds", dim3(8, 3));
    EXPECT_NE(what.find(std::string(kUnwritten) + "tile[2][5] has not"), std::string::npos) << what;
}

TEST_F(SharedElementNames, WithoutTheSourceTheFlatIndex)
{
    const std::string what = fault("literal_bounds", dim3(8, 3));
    EXPECT_NE(what.find(std::string(kUnwritten) + "tile[21] has not"), std::string::npos) << what;
}

TEST_F(SharedElementNames, ThreeDimensionsAsDeclared)
{
    declare();
    const std::string what = fault("three_dimensions", dim3(4, 3, 2));
    EXPECT_NE(what.find(std::string(kUnwritten) + "cube[1][2][3] has not"), std::string::npos) << what;
}

TEST_F(SharedElementNames, BoundsWrittenAlikeAreEqual)
{
    declare();
    const std::string what = fault("square", dim3(4, 4));
    EXPECT_NE(what.find(std::string(kUnwritten) + "s[3][1] has not"), std::string::npos) << what;
}

TEST_F(SharedElementNames, BoundsOfOneNameAreSolved)
{
    declare();
    const std::string what = fault("padded_macro", dim3(5, 4));
    EXPECT_NE(what.find(std::string(kUnwritten) + "padded[1][2] has not"), std::string::npos) << what;
}

TEST_F(SharedElementNames, BoundsNotKnownKeepTheFlatIndex)
{
    declare();
    const std::string what = fault("two_names", dim3(6, 2));
    EXPECT_NE(what.find(std::string(kUnwritten) + "As[8] has not"), std::string::npos) << what;
}

// The bounds' forms: each extent derived by hand in the comment beside it.
TEST(DeclaredExtents, SolvesTheOneName)
{
    using wl::ptx::declared_extents;
    using V = std::vector<std::uint64_t>;
    EXPECT_EQ(declared_extents({"3", "8"}, 24), V({3, 8}));
    EXPECT_EQ(declared_extents({"3", "8"}, 25), std::nullopt);             // the numbers must make the count
    EXPECT_EQ(declared_extents({"TILE", "TILE"}, 64), V({8, 8}));          // 8 * 8
    EXPECT_EQ(declared_extents({"TILE", "TILE"}, 48), std::nullopt);       // no whole square root
    EXPECT_EQ(declared_extents({"TILE", "TILE + 1"}, 1056), V({32, 33}));  // 32 * 33
    EXPECT_EQ(declared_extents({"TILE_ROWS", "32 + 1"}, 264), V({8, 33})); // 264 / 33
    EXPECT_EQ(declared_extents({"B + 2", "B + 2"}, 324), V({18, 18}));     // (16 + 2)^2
    EXPECT_EQ(declared_extents({"2 * (R + 1)", "R"}, 24), V({8, 3}));      // R = 3: 2 * 4 * 3
    EXPECT_EQ(declared_extents({"BM", "BK"}, 64), std::nullopt);           // two names
    EXPECT_EQ(declared_extents({"64 - T", "T"}, 1024), std::nullopt);      // shrinks as T grows
    EXPECT_EQ(declared_extents({"T * T", "4"}, 64), std::nullopt);         // not of the form
    EXPECT_EQ(declared_extents({"f(T)", "4"}, 64), std::nullopt);
}

TEST_F(SharedElementNames, OneDimensionUnchanged)
{
    declare();
    const std::string what = fault("one_dimension", dim3(16));
    EXPECT_NE(what.find(std::string(kUnwritten) + "line[9] has not"), std::string::npos) << what;
}

// Thread (0,0) reads grid[4][0], flat 16 of 16 elements: named flat, with the
// declared dimensions beside, never as an element inside (grid[4][0] is none).
TEST_F(SharedElementNames, PastTheLastRowStaysFlat)
{
    declare();
    const std::string what = fault("row_past_end", dim3(4, 4), 4);
    EXPECT_NE(what.find("out-of-bounds shared load: grid[16] is outside its 16 elements (4 x 4)"), std::string::npos) << what;
}

// The race fault says which element of row 0 the warps met at.
TEST_F(SharedElementNames, RaceNamesTheElementAsDeclared)
{
    declare();
    const std::string what = fault("rows_race", dim3(64));
    EXPECT_TRUE(std::regex_search(what, std::regex(R"(data race on shared memory: t\[0\]\[[0-9]+\] \(word [0-9]+\))"))) << what;
}

}  // namespace
