// The transpose ladder: one entry per version, in order, and the copy kernel
// the benchmark measures them against. Each entry names its kernel
// (kernels/transpose/NN_<name>.cuh, function template transpose_<name>) and
// its tiling; block, grid and template arguments follow from the tiling.
// The CLI, viewer, benchmarks, tests and grader all read this list. It does
// not include the kernels: the host compiler reads it without CUDA, and a
// version's kernel is found in the lab's PTX by name
// (labs/common/kernel_instance.h).
#pragma once
#include <cstddef>
#include <string>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#if !defined(__CUDACC__)
#include "warplab/dim3.h"
#endif

namespace warplab::transpose {

// Where every transpose kernel lives: version vN's is transpose_<name> in
// kernels/transpose/0N_<name>.cuh; PTX entry names read "warplab::transpose::transpose_<name><tile sizes>".
inline constexpr KernelFiles kKernels{
    .lab = "transpose",
    .prefix = "transpose",
    .user_shared = {[](unsigned x, unsigned, unsigned e) { return x * (x + 1) * e; },
                    "one blockDim.x × (blockDim.x + 1) tile of floats, the padded tile of Harris's "
                    "\"An Efficient Matrix Transpose in CUDA C/C++\""},
};

// The problem of one launch: out (cols×rows) = the transpose of in (rows×cols), on the device.
struct Operands {
    const float* in;
    float* out;
    unsigned rows, cols;
};

constexpr unsigned ceil_div(std::size_t x, unsigned d) { return static_cast<unsigned>((x + d - 1) / d); }

// A version whose THREADS_X×THREADS_Y block moves a TILE×TILE tile; the grid
// covers `in` with tiles: (ceil(cols / TILE), ceil(rows / TILE)).
template <unsigned TILE, unsigned THREADS_X, unsigned THREADS_Y> struct Tiling {
    static constexpr unsigned tile = TILE, threads_x = THREADS_X, threads_y = THREADS_Y;
    static dim3 block() { return dim3(THREADS_X, THREADS_Y); }
    static constexpr unsigned threads = THREADS_X * THREADS_Y;
    static dim3 grid(std::size_t rows, std::size_t cols) { return dim3(ceil_div(cols, TILE), ceil_div(rows, TILE)); }
};

// What `warplab trace` runs by default: 64×64 floats, a multiple of every
// tile and of 32, so each warp's access is aligned and whole.
constexpr std::size_t kTraceRows = 64, kTraceCols = 64;

struct V1 : Tiling<32, 32, 32> {
    static constexpr VersionMeta meta{
        .id = "v1", .name = "naive",
        .idea = "naive: one thread per element, out[x][y] = in[y][x]",
        .changed = "the starting point: Harris's transposeNaive, with bounds checks for any shape",
        .expected = "reads coalesce (4 sectors per request); writes walk down a column (32 sectors per request)",
        .bench_block = threads,
    };
    using template_args = Values<tile>;  // <TILE>: TILE×TILE threads
};

struct V2 : Tiling<32, 32, 32> {
    static constexpr VersionMeta meta{
        .id = "v2", .name = "coalesced",
        .idea = "coalesced: transpose through a 32×32 tile in shared memory",
        .changed = "rows go into tile[32][32]; after a barrier, the tile's columns go out as rows",
        .expected = "4 sectors per request for loads and stores; the column read of the tile is a 32-way bank conflict",
        .bench_block = threads,
    };
    using template_args = Values<tile>;  // <TILE>: TILE×TILE threads
};

struct V3 : Tiling<32, 32, 32> {
    static constexpr VersionMeta meta{
        .id = "v3", .name = "padded",
        .idea = "padding: tile[32][33], so a column of the tile spans 32 banks",
        .changed = "one unused float at the end of each row of the tile",
        .expected = "the column read of the tile is conflict-free (1 wavefront instead of 32)",
        .bench_block = threads,
    };
    using template_args = Values<tile>;  // <TILE>: TILE×TILE threads
};

struct V4 : Tiling<32, 32, 8> {
    static constexpr VersionMeta meta{
        .id = "v4", .name = "rows_per_thread", .idea = "several elements per thread: 32×8 threads move a 32×32 tile",
        .changed = "blockDim.y is 8; the load and the store each loop over 4 rows of the tile",
        .expected = "a quarter of the threads; the same sectors and banks as v3",
        .bench_block = threads,
    };
    using template_args = Values<tile, threads_y>;  // <TILE, ROWS>
};

// The L2 that v5's rule compares a matrix with: 50 MiB, the H100's and the
// H200's (the GPUs whose timings chose the rule; the emulator sizes its grids
// for an H100 too).
inline constexpr std::size_t kL2Bytes = std::size_t(50) << 20;

// v5's tiles for one size: TILE_ROWS rows of `in` by 32 columns, moved by v4's
// 32×8 threads; the grid covers `in` with them.
template <unsigned TILE_ROWS> struct TallTiles {
    static constexpr unsigned tile_rows = TILE_ROWS, threads = 32 * 8;
    static dim3 grid(std::size_t rows, std::size_t cols) { return dim3(ceil_div(cols, 32), ceil_div(rows, TILE_ROWS)); }
    using template_args = Values<TILE_ROWS, threads>;  // <TILE_ROWS, THREADS>
};

// v5 picks its tiles by size: v4's 32×32 where in and out fit in L2 together,
// 64×32 beyond (its timings against v4's tiles at 2048² and 8192² are in
// results/ and the walkthrough).
struct V5 {
    using InL2 = TallTiles<32>;
    using BeyondL2 = TallTiles<64>;
    static constexpr unsigned threads_x = 32, threads_y = 8, threads = threads_x * threads_y;
    static dim3 block() { return dim3(threads_x, threads_y); }
    static_assert(InL2::threads == threads && BeyondL2::threads == threads, "both tiles run v4's 32×8 threads");
    static constexpr bool fits_in_l2(std::size_t rows, std::size_t cols) { return 2 * rows * cols * sizeof(float) <= kL2Bytes; }
    static constexpr unsigned tile_rows(std::size_t rows, std::size_t cols)
    {
        return fits_in_l2(rows, cols) ? InL2::tile_rows : BeyondL2::tile_rows;
    }
    static dim3 grid(std::size_t rows, std::size_t cols)
    {
        return fits_in_l2(rows, cols) ? InL2::grid(rows, cols) : BeyondL2::grid(rows, cols);
    }
    static constexpr VersionMeta meta{
        .id = "v5", .name = "tall_tiles",
        .idea = "taller tiles where the matrix does not fit in L2: 64×32 tiles, so each row of out a block writes is 256 bytes",
        .changed = "the tile is 64 rows × 32 columns for v4's 32×8 threads (8 loads per thread) where in and out exceed L2; "
                   "v4's 32×32 tiles where they fit",
        .expected = "v4's sectors and banks; faster than v4 and the copy beyond L2 (writes reach DRAM in runs twice as long), "
                    "v4's time within it",
        .bench_block = threads,
    };
};

using Versions = std::tuple<V1, V2, V3, V4, V5>;

// The ceiling the benchmark measures every version against, in both "% of
// copy" and "vs copy": Harris's copy, with v4's tiles and threads
// (kernels/transpose/00_copy.cuh, transpose_copy), the tiles v5 also runs
// where the matrix fits in L2. Not a version: it does not transpose, and only
// the GPU benchmark runs it.
struct Copy : Tiling<V4::tile, V4::threads_x, V4::threads_y> {
    static constexpr VersionMeta meta{
        .id = "copy", .name = "copy",
        .idea = "copy with v4's tiles: reads and writes both rows",
        .changed = "out[y][x] = in[y][x]: the same bytes as a transpose, both sides coalesced",
        .expected = "the bandwidth a transpose can reach with these tiles",
        .bench_block = threads,
    };
    using template_args = Values<tile, threads_y>;  // <TILE, ROWS>
};

// Calls f(KernelInstance<V, template arguments>{}) for the instance of V's
// kernel that a rows×cols launch runs: V's own, or the tiles v5 picks.
template <class V, class F> void with_instance(std::size_t rows, std::size_t cols, F&& f)
{
    if constexpr (requires { V::fits_in_l2(rows, cols); }) {
        if (V::fits_in_l2(rows, cols))
            f(KernelInstance<V, typename V::InL2::template_args>{});
        else
            f(KernelInstance<V, typename V::BeyondL2::template_args>{});
    } else {
        f(KernelInstance<V, typename V::template_args>{});
    }
}

// Calls f(instance) for every instance a launch of V may run (the lab's PTX holds them all).
template <class V, class F> void for_each_instance(F&& f)
{
    if constexpr (requires { typename V::InL2; }) {
        f(KernelInstance<V, typename V::InL2::template_args>{});
        f(KernelInstance<V, typename V::BeyondL2::template_args>{});
    } else {
        f(KernelInstance<V, typename V::template_args>{});
    }
}

// The tile of a rows×cols launch of V, "32×32" (rows × columns of `in`).
template <class V> std::string tile_text(std::size_t rows, std::size_t cols)
{
    if constexpr (requires { V::tile_rows(rows, cols); })
        return std::to_string(V::tile_rows(rows, cols)) + "×32";
    else
        return std::to_string(V::tile) + "×" + std::to_string(V::tile);
}

// Every kernel takes (in, out, rows, cols); the version's tile sizes are its template arguments.
template <class V, class Backend> void launch(Backend& be, const Operands& o)
{
    with_instance<V>(o.rows, o.cols, [&](auto instance) {
        be.launch(instance, V::grid(o.rows, o.cols), V::block(), o.in, o.out, o.rows, o.cols);
    });
}

}  // namespace warplab::transpose
