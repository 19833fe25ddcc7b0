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

using Versions = std::tuple<V1, V2, V3, V4>;

// The ceiling the benchmark measures every version against, in both "% of
// copy" and "vs copy": a copy with the last version's tiles
// (kernels/transpose/00_copy.cuh, transpose_copy). Not a version: it does not
// transpose, and only the GPU benchmark runs it.
using LastVersion = std::tuple_element_t<std::tuple_size_v<Versions> - 1, Versions>;
struct Copy : Tiling<LastVersion::tile, LastVersion::threads_x, LastVersion::threads_y> {
    static constexpr VersionMeta meta{
        .id = "copy", .name = "copy",
        .idea = "copy with the transpose's tiles: reads and writes both rows",
        .changed = "out[y][x] = in[y][x]: the same bytes as a transpose, both sides coalesced",
        .expected = "the bandwidth a transpose can reach at best",
        .bench_block = threads,
    };
    using template_args = Values<tile, threads_y>;  // <TILE, ROWS>
};

// Every kernel takes (in, out, rows, cols); the version's tile sizes are its template arguments.
template <class V, class Backend> void launch(Backend& be, const Operands& o)
{
    be.launch(KernelInstance<V, typename V::template_args>{}, V::grid(o.rows, o.cols), V::block(), o.in, o.out, o.rows, o.cols);
}

}  // namespace warplab::transpose
