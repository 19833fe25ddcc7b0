// The matrix-multiply ladder: one entry per version, in order. Each entry
// names its kernel (kernels/matmul/NN_<name>.cuh, function template
// matmul_<name>) and its tiles, by name; its block, grid and template
// arguments follow from the tiles. The CLI, viewer, benchmarks, tests and grader all
// read this list. It does not include the kernels: the host compiler reads it
// without CUDA, and a version's kernel is found in the lab's PTX by name
// (labs/common/kernel_instance.h).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#include "labs/matmul/problem.h"  // Arithmetic
#if !defined(__CUDACC__)
#include "warplab/dim3.h"
#endif

namespace warplab::matmul {

// Where every matmul kernel lives: version vN's is matmul_<name> in
// kernels/matmul/0N_<name>.cuh; PTX entry names read "warplab::matmul::matmul_<name><tile sizes>".
inline constexpr KernelFiles kKernels{
    .lab = "matmul",
    .prefix = "matmul",
    .user_shared = {[](unsigned x, unsigned y, unsigned e) { return 2 * x * y * e; },
                    "two tiles of blockDim.x × blockDim.y floats, A's and B's, as Kirk and Hwu's dynamically sized tiles "
                    "(\"Programming Massively Parallel Processors\") give"},
};

// A and B rounded to bf16 (16-bit patterns), rows padded with zeros to a
// multiple of 8 elements (16 bytes, a tensor map's row stride): what the
// BF16 versions multiply. The bench makes them before and outside its timing
// (labs/matmul/bf16_inputs.cuh); where a run sets none, v14's launch makes them.
struct Bf16Operands {
    const std::uint16_t* a = nullptr;  // M rows of bf16_row(K)
    const std::uint16_t* b = nullptr;  // K rows of bf16_row(N)
};
constexpr std::size_t bf16_row(std::size_t cols) { return (cols + 7) / 8 * 8; }

// The problem of one launch: C (M×N) = A (M×K) · B (K×N), row-major, on the device.
struct Operands {
    const float* a;
    const float* b;
    float* c;
    unsigned m, n, k;
    Bf16Operands bf16 = {};  // the BF16 versions' inputs, if made before the launch
};

constexpr unsigned ceil_div(std::size_t x, unsigned d) { return static_cast<unsigned>((x + d - 1) / d); }

// A version's tiles, by name (the kernels' template parameters of the same names).
struct Tiles {
    unsigned bm, bn;          // the block's tile of C: BM rows, BN columns
    unsigned bk = 0;          // the depth along K of a shared tile of A and B (0: no shared tiles)
    unsigned tm = 1, tn = 1;  // each thread's results: TM rows, TN columns
    unsigned wm = 0, wn = 0;  // a warp's tile of C, when threads are placed by warp (0: they are not)
    unsigned min_blocks = 0;  // blocks per SM the kernel's __launch_bounds__ asks registers for
};

// A version whose block covers a BM×BN tile of C. Threads: 32 lanes × one warp
// per warp tile, or one per TM×TN results, BN/TN across and BM/TM down. The
// grid is (ceil(N / BN), ceil(M / BM)), or transposed (v1 walks rows with x).
template <Tiles T, bool transposed_grid = false> struct Tiled {
    static constexpr Tiles tiles = T;
    static constexpr unsigned threads_x = T.wm ? 32 : (transposed_grid ? T.bm / T.tm : T.bn / T.tn);
    static constexpr unsigned threads_y = T.wm ? (T.bm / T.wm) * (T.bn / T.wn) : (transposed_grid ? T.bn / T.tn : T.bm / T.tm);
    static constexpr unsigned threads = threads_x * threads_y;
    static dim3 block() { return dim3(threads_x, threads_y); }
    static dim3 grid(std::size_t m, std::size_t n)
    {
        return transposed_grid ? dim3(ceil_div(m, T.bm), ceil_div(n, T.bn)) : dim3(ceil_div(n, T.bn), ceil_div(m, T.bm));
    }
    // What `warplab trace` runs by default: one block's worth of C (at least
    // 64×64), and K = 64, a few tiles deep.
    static constexpr std::size_t trace_m = T.bm > 64 ? T.bm : 64, trace_n = T.bn > 64 ? T.bn : 64, trace_k = 64;
};

struct V1 : Tiled<Tiles{.bm = 32, .bn = 32}, true> {
    static constexpr VersionMeta meta{
        .id = "v1",
        .name = "naive",
        .idea = "naive: one thread per element of C; lanes of a warp walk down a column of C",
        .changed = "the starting point: Kirk and Hwu's kernel for any M, N, K and many blocks",
        .expected = "correct and slow: a warp's loads of A touch 32 sectors per request",
        .bench_block = threads,
    };
    using template_args = Values<tiles.bm, tiles.bn>;  // <BX, BY>: x walks rows
};

struct V2 : Tiled<Tiles{.bm = 32, .bn = 32}> {
    static constexpr VersionMeta meta{
        .id = "v2",
        .name = "coalesced",
        .idea = "global-memory coalescing: lanes of a warp walk along a row of C",
        .changed = "row and col swapped their thread index",
        .expected = "B loads 4 sectors per request, A loads 1 (broadcast)",
        .bench_block = threads,
    };
    using template_args = Values<tiles.bn, tiles.bm>;  // <BX, BY>: x walks columns
};

struct V3 : Tiled<Tiles{.bm = 32, .bn = 32, .bk = 32}> {
    static constexpr VersionMeta meta{
        .id = "v3",
        .name = "shared_tiles",
        .idea = "shared-memory tiling: 32×32 tiles of A and B, loaded once per block",
        .changed = "the dot product reads shared tiles; the block loads them tile by tile",
        .expected = "32x fewer global loads; two steps per tile (load, compute)",
        .bench_block = threads,
    };
    static_assert(tiles.bm == tiles.bn && tiles.bn == tiles.bk, "square tiles: one TILE");
    using template_args = Values<tiles.bm>;  // <TILE>
};

struct V4 : Tiled<Tiles{.bm = 64, .bn = 64, .bk = 8, .tm = 8}> {
    static constexpr VersionMeta meta{
        .id = "v4",
        .name = "1d_blocktiling",
        .idea = "1D register blocking: each thread computes a column of 8 results",
        .changed = "64×64 block tiles, BK = 8; one B value in a register serves 8 products",
        .expected = "1.125 shared loads per product instead of 2",
        .bench_block = threads,
    };
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.tm>;
};

// v5 to v7 share their tiles: each step changes the code, not the shape.
inline constexpr Tiles kBlocktiles{.bm = 128, .bn = 128, .bk = 8, .tm = 8, .tn = 8};

struct V5 : Tiled<kBlocktiles> {
    static constexpr VersionMeta meta{
        .id = "v5",
        .name = "2d_blocktiling",
        .idea = "2D register blocking: each thread computes an 8×8 block of C",
        .changed = "128×128 block tiles, 256 threads; an outer product of 8 + 8 registers per step",
        .expected = "0.25 shared loads per product; 2- and 4-way bank conflicts on the scalar reads",
        .bench_block = threads,
    };
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.tm, tiles.tn>;
};

struct V6 : Tiled<kBlocktiles> {
    static constexpr VersionMeta meta{
        .id = "v6",
        .name = "vectorized",
        .idea = "128-bit loads and stores; A's tile stored transposed in shared memory",
        .changed = "float4 global loads, float4 shared reads of As and Bs, float4 stores of C",
        .expected = "a quarter of the load instructions; 2-way conflicts on As stores and Bs reads",
        .bench_block = threads,
    };
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.tm, tiles.tn>;
};

struct V7 : Tiled<kBlocktiles> {
    static constexpr VersionMeta meta{
        .id = "v7",
        .name = "conflict_free",
        .idea = "bank-conflict-free shared layout: As padded, Bs swizzled",
        .changed = "As rows are BM + 4 floats; float4 c of a Bs row is stored at c ^ ((c >> 3) & 1)",
        .expected = "zero bank conflicts in every step",
        .bench_block = threads,
    };
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.tm, tiles.tn>;
};

// One configuration of v8's kernel template: its template arguments follow from its tiles.
template <Tiles T> struct Warptiled : Tiled<T> {
    static_assert(T.wm != 0 && T.wn != 0, "threads are placed by warp tile");
    using template_args = Values<T.bm, T.bn, T.bk, T.wm, T.wn, T.tm, T.tn, T.min_blocks>;
};

// A version that launches one of several tile configurations (Tiled types,
// smallest tiles first), picked for each launch by choose_tiles. They share the
// block size, so that is one fact of the version; its trace default is one
// block's worth of the smallest tiles, which is what the rule picks for a
// product that small.
template <class Smallest, class... Larger> struct TileChoices {
    using tile_choices = std::tuple<Smallest, Larger...>;
    static constexpr unsigned threads = Smallest::threads;
    static_assert(((Larger::threads_x == Smallest::threads_x && Larger::threads_y == Smallest::threads_y) && ...),
                  "every configuration runs the same block of threads");
    static dim3 block() { return Smallest::block(); }
    static constexpr std::size_t trace_m = Smallest::trace_m, trace_n = Smallest::trace_n, trace_k = Smallest::trace_k;
};

// Which of `Configs` (a std::tuple of Tiled types, smallest tiles first) an
// M×N product uses on a GPU of `sms` SMs: its index. The largest tiles reuse
// each loaded value most, so the rule takes the largest tiles that still give
// every SM at least one block (a full wave); when none does, the smallest
// tiles, which leave the fewest SMs idle. On 132 SMs, for v8: at 1024×1024,
// 128×128 tiles make 64 blocks and 128×64 tiles 128, both fewer than 132;
// 64×64 tiles make 256: 64×64. At 1280×1280, 128×64 tiles make 200 blocks:
// 128×64. From 1409×1409 on (144 blocks of 128×128; 121 at 1408): 128×128.
// The rule ignores the last, partial wave: at 1536×1536 the 144 blocks of
// 128×128 put two on 12 SMs and one on the others.
template <class Configs> constexpr std::size_t choose_tiles(std::size_t m, std::size_t n, unsigned sms)
{
    std::size_t index = 0, best = 0, best_area = 0;
    for_each_version<Configs>([&](auto config) {
        constexpr Tiles t = decltype(config)::tiles;
        const std::size_t blocks = std::size_t(ceil_div(m, t.bm)) * ceil_div(n, t.bn);
        const std::size_t area = std::size_t(t.bm) * t.bn;
        // From the smallest tiles up: the first is the fallback, a later one
        // wins where its blocks fill the GPU.
        if (index == 0 || (blocks >= sms && area > best_area)) best = index, best_area = area;
        ++index;
        return false;
    });
    return best;
}

// Calls f(C{}) with C the tiles version V launches with for an M×N product on
// `sms` SMs: V itself, or the configuration choose_tiles picks from V's.
template <class V, class F> void with_tiles(std::size_t m, std::size_t n, unsigned sms, F&& f)
{
    if constexpr (requires { typename V::tile_choices; }) {
        const std::size_t pick = choose_tiles<typename V::tile_choices>(m, n, sms);
        std::size_t index = 0;
        for_each_version<typename V::tile_choices>([&](auto config) {
            if (index++ != pick) return false;
            f(config);
            return true;
        });
    } else {
        f(V{});
    }
}

// Calls f(KernelInstance<V, template arguments>{}) for every instance of V's
// kernel that a launch may use: one, or one per tile configuration.
template <class V, class F> void for_each_instance(F&& f)
{
    if constexpr (requires { typename V::tile_choices; }) {
        for_each_version<typename V::tile_choices>([&](auto config) {
            f(KernelInstance<V, typename decltype(config)::template_args>{});
            return false;
        });
    } else {
        f(KernelInstance<V, typename V::template_args>{});
    }
}

// v8's tile configurations, each of 4 warps. The 128×128 tiles reuse each
// loaded value most; where they would give some SMs no block, the smaller
// ones give them work (choose_tiles). Their times against cuBLAS at each size
// are recorded in results/ and shown in the walkthrough.
using Warptiles64x64 = Warptiled<Tiles{.bm = 64, .bn = 64, .bk = 32, .tm = 4, .tn = 8, .wm = 32, .wn = 32, .min_blocks = 4}>;
using Warptiles128x64 = Warptiled<Tiles{.bm = 128, .bn = 64, .bk = 16, .tm = 8, .tn = 8, .wm = 64, .wn = 32, .min_blocks = 2}>;
using Warptiles128x128 = Warptiled<Tiles{.bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 16, .wm = 64, .wn = 64, .min_blocks = 2}>;

// Listed smallest first, so the PTX (and ptxas's report, which lists a
// module's kernels last first) names the 128×128 instance first: the one
// `warplab occupancy` shows for v8, at 128 threads.
struct V8 : TileChoices<Warptiles64x64, Warptiles128x64, Warptiles128x128> {
    static constexpr VersionMeta meta{
        .id = "v8",
        .name = "warptiled",
        .idea = "warptiling and double buffering, tuned for Hopper",
        .changed = "4 warps, each owning a 64×64 tile (8×16 per lane, in strided 4×4 pieces); BK = 16; two shared "
                   "stages; smaller tiles where 128×128 would leave SMs idle",
        .expected = "one barrier per tile, global latency hidden; near cuBLAS at 1024^3 as at 4096^3",
        .bench_block = threads,
    };
};

// v9: v8's warp tiles, twice as many per block, fed by a ring of cp.async
// stages in dynamic shared memory.
struct V9 : Tiled<Tiles{.bm = 128, .bn = 256, .bk = 16, .tm = 8, .tn = 16, .wm = 64, .wn = 64, .min_blocks = 1}> {
    static constexpr unsigned stages = 3;  // 3 × 24.8 KB: two tiles in flight while one is computed on
    static constexpr VersionMeta meta{
        .id = "v9",
        .name = "pipelined",
        .idea = "a multistage cp.async pipeline: copies straight to shared memory, fragments double-buffered, FFMAs in "
                "operand-reuse order",
        .changed = "8 warps of 64×64 per 128×256 tile; 3 stages filled by cp.async (spread over the k steps) instead of "
                   "loads and stores through registers; two fragment sets; column-serpentine FFMA order",
        .expected = "level with cuBLAS's FP32 SGEMM at 2048^3 and up; slower than v8 at 1024^3 (32 blocks for 132 SMs)",
        .bench_block = threads,
        .dynamic_shared_bytes = stages * tiles.bk * (tiles.bm + 4 + tiles.bn) * 4,  // As (rows padded by 4) and Bs
    };
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.wm, tiles.wn, tiles.tm, tiles.tn, stages, tiles.min_blocks>;
};

// v10 keeps v8's tiles; the emulator runs its mma.sync as a warp collective.
struct V10 : Tiled<Tiles{.bm = 128, .bn = 128, .bk = 16, .wm = 64, .wn = 64, .min_blocks = 2}> {
    static constexpr VersionMeta meta{
        .id = "v10",
        .name = "tensor_cores",
        .idea = "tensor cores: mma.sync multiplies 16×8×8 pieces in TF32",
        .changed = "v8's tiles and stages; mma.sync on its fragments instead of FFMA; As untransposed, Bs rows padded by 8",
        .expected = "several times v8, errors of TF32's size (about 1e-4); compared with cuBLAS in TF32",
        .bench_block = threads,
        .builds_on = "v8",
    };
    static constexpr Arithmetic arithmetic = Arithmetic::Tf32;
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.wm, tiles.wn, tiles.min_blocks>;
};

// v11: one warpgroup (4 warps) per block, its 128×64 tile of C; each warp's
// accumulators are 16 columns of it, all 128 rows (wgmma's m64n128k8 on C^T).
struct V11 : Tiled<Tiles{.bm = 128, .bn = 64, .bk = 32, .wm = 128, .wn = 16}> {
    static constexpr unsigned stages = 2;  // 2 × 24 KB of tiles: within a block's 48 KB of static shared memory
    static constexpr VersionMeta meta{
        .id = "v11",
        .name = "wgmma",
        .idea = "Hopper's warpgroup tensor cores: wgmma multiplies 64×128×8 pieces in TF32, fed by cp.async",
        .changed = "mma.sync becomes wgmma (a warpgroup of 4 warps per 128×64 tile, C^T = B^T·A^T); tiles by cp.async, "
                   "BK = 32, two stages; A's tile in the 128-byte swizzle its matrix descriptor names",
        .expected = "faster than v10, same TF32 error; short of cuBLAS TF32 (one wgmma group in flight, every thread issues copies)",
        .bench_block = threads,
        .gpu_only = "its wgmma is a Hopper tensor-core instruction (sm_90a) that works on a warpgroup's operands in "
                    "shared memory, which warplab's emulator (a PTX interpreter) does not implement",
    };
    // The lab's PTX, which the GPU trace instruments, is built for compute_90, where wgmma does not exist.
    static constexpr const char* untraced = "its wgmma exists only in sm_90a code, and the PTX warplab instruments is "
                                            "compute_90's; warplab bench times it and the gpu tests check it";
    static constexpr Arithmetic arithmetic = Arithmetic::Tf32;
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, stages>;
};

// v12's block is not a grid of thread tiles: a producer warpgroup and two
// consumer warpgroups, 384 threads in x, for a 256×128 tile of C.
struct V12 {
    static constexpr Tiles tiles{.bm = 256, .bn = 128, .bk = 32};
    static constexpr unsigned stages = 4;       // 4 × 48 KB of tiles in flight
    static constexpr unsigned group_rows = 8;   // blocks visited in groups of 8 block-rows
    static constexpr unsigned threads = 3 * 128;
    static dim3 block() { return dim3(threads); }
    // Pieces of K per tile of C: where the tiles number under half the SMs,
    // as many as fill the SMs (1024^3 on 132 SMs: 32 tiles, 4 pieces of 8
    // k-tiles, 128 blocks); else 1.
    static constexpr unsigned k_pieces(std::size_t m, std::size_t n, std::size_t k, unsigned sms)
    {
        const std::size_t count = std::size_t(ceil_div(m, tiles.bm)) * ceil_div(n, tiles.bn), fill = sms / count;
        return fill < 2 ? 1 : static_cast<unsigned>(std::min<std::size_t>(fill, ceil_div(k, tiles.bk)));
    }
    static dim3 grid(std::size_t m, std::size_t n, std::size_t k, unsigned sms)
    {
        return dim3(ceil_div(n, tiles.bn), ceil_div(m, tiles.bm), k_pieces(m, n, k, sms));
    }
    static constexpr std::size_t trace_m = tiles.bm, trace_n = tiles.bn, trace_k = 64;
    static constexpr VersionMeta meta{
        .id = "v12",
        .name = "tma_pipeline",
        .idea = "feed the tensor cores: a producer warpgroup fills a 4-stage TMA ring, two consumer warpgroups only multiply",
        .changed = "384 threads (1 producer, 2 consumer warpgroups) per 256×128 tile; tiles by the tensor copy engine into "
                   "4 stages with full/empty mbarriers; m64n256k8 of C^T with A's tile by descriptor and B^T's fragments "
                   "read from B's tile as it lies (no transpose pass); K split in pieces where tiles are under half the SMs",
        .expected = "near cuBLAS TF32 at large sizes, the same TF32 error; few blocks at small sizes",
        .bench_block = threads,
        .gpu_only = "its wgmma (Hopper's tensor-core instruction), setmaxnreg and tensor copies exist only in sm_90a code, "
                    "which warplab's emulator (a PTX interpreter) does not implement",
        .dynamic_shared_bytes = stages * (tiles.bm + tiles.bn) * tiles.bk * 4 + 1024,  // + alignment to 1024 bytes
    };
    static constexpr const char* untraced = "its wgmma exists only in sm_90a code, and the PTX warplab instruments is "
                                            "compute_90's; warplab bench times it and the gpu tests check it";
    static constexpr Arithmetic arithmetic = Arithmetic::Tf32;
    // Its launch is more than one kernel: the tensor maps (after padding rows
    // where needed), then the kernel (launch_tma_pipeline, labs/matmul/tma_launch.cu).
    static constexpr bool host_prepared = true;
    using template_args = Values<tiles.bm, stages, group_rows>;
};

// v13: v9's kernel and tiles, one block per SM; the tiles beyond full waves
// are shared out among the blocks by k-tile (stream-K). Where the rule below
// shares out no tile, the launch is v9's: the same tiles, whole, in v9's grid.
struct V13 : Tiled<V9::tiles> {
    static constexpr VersionMeta meta{
        .id = "v13",
        .name = "stream_k",
        .idea = "stream-K: one block per SM, each given the same number of BK-deep steps; blocks that share a tile add "
                "their sums through a workspace",
        .changed = "v9's loop over K runs per piece of a tile; the tiles that do not fill a wave (and one wave more) are "
                   "cut into k-tiles and shared out evenly; the last block of a split tile adds the others' sums; where "
                   "no tile would be shared out, v9's kernel runs instead",
        .expected = "faster than v9 where tiles fill the SMs unevenly (1024^3: 32 tiles for 132 SMs; 4096^3: 512), v9's "
                    "time where they divide evenly or nearly (2048^3: 128 tiles)",
        .bench_block = threads,
        .dynamic_shared_bytes = V9::meta.dynamic_shared_bytes,
        .builds_on = "v9",
    };
    using template_args = V9::template_args;
    static constexpr std::size_t tile_count(std::size_t m, std::size_t n)
    {
        return std::size_t(ceil_div(m, tiles.bm)) * ceil_div(n, tiles.bn);
    }
    // The blocks of a stream-K launch: one per SM, and no more than k-tiles
    // (every block has work). With fewer tiles than SMs, a whole number of
    // blocks per tile where that leaves at most 1/16 of the SMs idle: each
    // block then takes one piece of one tile, and none pays for a second
    // piece's pipeline start and sums (1024^3 on 132 SMs: 32 tiles, 4
    // blocks each, 128 blocks of 16 k-tiles; 132 would give some 16 k-tiles
    // in two pieces, so no block would finish sooner).
    static constexpr unsigned blocks(std::size_t m, std::size_t n, std::size_t k, unsigned sms)
    {
        const std::size_t count = tile_count(m, n);
        const std::size_t g = std::min<std::size_t>(sms, count * ceil_div(k, tiles.bk));
        const std::size_t whole = count <= g ? g / count * count : 0;
        return static_cast<unsigned>(whole > 0 && g - whole <= g / 16 ? whole : g);
    }
    // How many tiles G blocks share out by k-tile, the first ones in row-major
    // order (the kernel's argument): none when the tiles make full waves, or
    // when the last wave is within G/16 of full (its few idle SMs cost less
    // than the sharing does: 128 tiles on 132 SMs ran slower shared out); all
    // of them when there are fewer than two waves; else the last wave and one
    // full wave before it, so that each block's share is at least a tile deep.
    static constexpr unsigned shared_tiles(std::size_t tiles, unsigned G)
    {
        const std::size_t last_wave = tiles % G;
        if (last_wave == 0 || last_wave >= G - G / 16) return 0;
        return static_cast<unsigned>(tiles < 2 * std::size_t(G) ? tiles : G + last_wave);
    }
    static constexpr unsigned shared_tiles(std::size_t m, std::size_t n, std::size_t k, unsigned sms)
    {
        return shared_tiles(tile_count(m, n), blocks(m, n, k, sms));
    }
    // G blocks where tiles are shared out; else v9's grid, one block per tile.
    static dim3 grid(std::size_t m, std::size_t n, std::size_t k, unsigned sms)
    {
        return shared_tiles(m, n, k, sms) ? dim3(blocks(m, n, k, sms)) : V9::grid(m, n);
    }
    // The kernel's workspace for `blocks` blocks: two pieces of a tile's sums
    // (a block's first and last) and two tile counters per block.
    static std::size_t partial_floats(unsigned blocks) { return std::size_t(2) * blocks * tiles.bm * tiles.bn; }
    static std::size_t workspace_bytes(unsigned blocks) { return partial_floats(blocks) * 4 + std::size_t(2) * blocks * 4; }
};

// v14's block is v12's shape (a producer warpgroup, two consumers), one per
// SM at most, each walking tiles of C until none is left.
struct V14 {
    static constexpr Tiles tiles{.bm = 128, .bn = 256, .bk = 64};
    static constexpr unsigned stages = 4;       // 4 × 48 KB of bf16 tiles in flight
    static constexpr unsigned group_rows = 16;  // tiles walked in groups of 16 tile-rows
    static constexpr unsigned threads = 3 * 128;
    static dim3 block() { return dim3(threads); }
    static constexpr unsigned tile_count(std::size_t m, std::size_t n)
    {
        return ceil_div(m, tiles.bm) * ceil_div(n, tiles.bn);
    }
    // Persistent: as few waves as the SMs allow, and then as few blocks as
    // make those waves, so every block walks the same number of tiles (4096^3
    // on 132 SMs: 512 tiles, 4 waves, 128 blocks of 4; 132 blocks would give
    // 4 SMs nothing more to do in the fourth and crowd L2 for no gain).
    static dim3 grid(std::size_t m, std::size_t n, std::size_t, unsigned sms)
    {
        const std::size_t count = tile_count(m, n), waves = ceil_div(count, sms);
        return dim3(static_cast<unsigned>(ceil_div(count, waves)));
    }
    static constexpr std::size_t c_buffer_bytes = 2 * 64 * 64 * 4;  // two consumers, each two 8 KB slots of 64 rows × 32 columns of C on their way out
    static constexpr std::size_t trace_m = tiles.bm, trace_n = tiles.bn, trace_k = 64;
    static constexpr VersionMeta meta{
        .id = "v14",
        .name = "bf16_wgmma",
        .idea = "BF16 on the tensor cores: both operands go from the copy engine to wgmma by descriptor, in persistent "
                "blocks",
        .changed = "A and B rounded to bf16 before the run (untimed), FP32 sums; m64n256k16 with B's tile read N-major "
                   "(no transpose, no fragments in registers); 128×256 tiles, BK = 64, 4 stages of 48 KB; one block per "
                   "SM walks the tiles, its producer running ahead into the next tile; C stored by the copy engine from "
                   "shared memory, half of each tile held in registers and stored during the next tile's multiply; no "
                   "pieces of K",
        .expected = "about twice v12's rate at large sizes, level with cuBLAS's BF16 GEMM; an error of bf16's size "
                    "(a few thousandths relative, several times TF32's); few tiles at small sizes",
        .bench_block = threads,
        .gpu_only = V12::meta.gpu_only,  // the same instructions
        .dynamic_shared_bytes = stages * (tiles.bm + tiles.bn) * tiles.bk * 2 + c_buffer_bytes + 1024,  // bf16; + alignment to 1024 bytes
        .builds_on = "v12",  // the tensor-core ladder: v13 is FP32's last step, not v14's base
    };
    static constexpr const char* untraced = V12::untraced;
    static constexpr Arithmetic arithmetic = Arithmetic::Bf16;
    using template_args = Values<stages, group_rows>;
};

// v15 is v14 in clusters of two blocks, one above the other on C's columns:
// each block copies half of their shared tile of B into both.
struct V15 {
    static constexpr Tiles tiles = V14::tiles;
    static constexpr unsigned stages = V14::stages;
    static constexpr unsigned cluster_blocks = 2;  // __cluster_dims__(2, 1, 1): a pair of vertically adjacent tiles
    static constexpr unsigned group_rows = V14::group_rows / cluster_blocks;  // groups of pairs: v14's 16 tile-rows
    static constexpr unsigned threads = V14::threads;
    static dim3 block() { return dim3(threads); }
    static constexpr unsigned pair_count(std::size_t m, std::size_t n)
    {
        return ceil_div(m, cluster_blocks * tiles.bm) * ceil_div(n, tiles.bn);
    }
    // v14's rule by pairs: as few waves as `clusters` pairs of SMs allow (a
    // cluster's blocks run at once), then as few clusters as make those
    // waves (4096^3 with 66 clusters: 256 pairs, 4 waves, 64 clusters).
    static dim3 grid_for_clusters(std::size_t m, std::size_t n, unsigned clusters)
    {
        const std::size_t count = pair_count(m, n), waves = ceil_div(count, clusters);
        return dim3(cluster_blocks * static_cast<unsigned>(ceil_div(count, waves)));
    }
    // With every SM in a pair (the launch asks the GPU how many clusters fit).
    static dim3 grid(std::size_t m, std::size_t n, std::size_t, unsigned sms) { return grid_for_clusters(m, n, sms / cluster_blocks); }
    static constexpr std::size_t trace_m = V14::trace_m, trace_n = V14::trace_n, trace_k = V14::trace_k;
    static constexpr VersionMeta meta{
        .id = "v15",
        .name = "bf16_multicast",
        .idea = "Clusters of two blocks share a tile of B: each block has the copy engine write half of it into "
                "both blocks' shared memory at once (multicast)",
        .changed = "__cluster_dims__(2, 1, 1): a cluster owns two vertically adjacent 128×256 tiles of C; B's four "
                   "boxes by multicast, two from each block; a stage is free when the consumers of both blocks are "
                   "done with it; a cluster barrier after the barriers are made, and each producer waits for the other "
                   "block's last arrivals before its block ends",
        .expected = "a third less traffic from L2 (32 KB a k-tile for each block instead of 48), so a little more "
                    "clock under the GPU's power limit: a little faster than v14 at large sizes, above cuBLAS's BF16 "
                    "GEMM there; v14's results bit for bit",
        .bench_block = threads,
        .gpu_only = V14::meta.gpu_only,  // the same instructions, and multicast
        .dynamic_shared_bytes = V14::meta.dynamic_shared_bytes,
        .builds_on = "v14",
    };
    static constexpr const char* untraced = V14::untraced;
    static constexpr Arithmetic arithmetic = Arithmetic::Bf16;
    using template_args = Values<stages, group_rows>;
};

using Versions = std::tuple<V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15>;

// The grid of a launch of C (a version or one of its tile configurations)
// for M×N×K on `sms` SMs: by the tiles of C, or as C's grid says (v13).
template <class C> dim3 launch_grid(std::size_t m, std::size_t n, std::size_t k, unsigned sms)
{
    if constexpr (requires { C::grid(m, n, k, sms); })
        return C::grid(m, n, k, sms);
    else
        return C::grid(m, n);
}

// v12's launch on the GPU: pads rows where needed, makes the tensor maps, launches its
// kernel (GPU builds; elsewhere it throws, as v12 runs only on a GPU).
void launch_tma_pipeline(const Operands& o);
// v14's: the tensor maps of o.bf16 (which it requires), then its kernel.
void launch_bf16_wgmma(const Operands& o);
// v15's: v14's tensor maps, then its kernel in clusters of two.
void launch_bf16_multicast(const Operands& o);

// The arithmetic version V multiplies in: FP32 unless its entry says otherwise
// (v10: TF32 on the tensor cores). It sets the tolerance of its check.
template <class V> constexpr Arithmetic arithmetic_of()
{
    if constexpr (requires { V::arithmetic; })
        return V::arithmetic;
    else
        return Arithmetic::Fp32;
}

// Every kernel takes (A, B, C, M, N, K); the tile sizes are its template
// arguments, those of the version's tiles for this size on the backend's SMs.
template <class V, class Backend> void launch(Backend& be, const Operands& o)
{
    if constexpr (requires { V::cluster_blocks; }) {
        launch_bf16_multicast(o);
    } else if constexpr (arithmetic_of<V>() == Arithmetic::Bf16) {
        launch_bf16_wgmma(o);
    } else if constexpr (requires { V::host_prepared; }) {
        launch_tma_pipeline(o);
    } else if constexpr (requires { V::workspace_bytes(1u); }) {
        const unsigned sms = be.multiprocessors(), shared = V::shared_tiles(o.m, o.n, o.k, sms);
        if (shared == 0) {  // nothing to share out: v9's launch
            be.launch_with_shared(KernelInstance<V9, V9::template_args>{}, V9::grid(o.m, o.n), V9::block(),
                                  V9::meta.dynamic_shared_bytes, o.a, o.b, o.c, o.m, o.n, o.k);
            return;
        }
        const unsigned blocks = V::blocks(o.m, o.n, o.k, sms);
        float* partial = static_cast<float*>(be.scratch(V::workspace_bytes(blocks)));
        unsigned* arrived = reinterpret_cast<unsigned*>(partial + V::partial_floats(blocks));
        be.launch_with_shared(KernelInstance<V, typename V::template_args>{}, dim3(blocks), V::block(),
                              V::meta.dynamic_shared_bytes, o.a, o.b, o.c, o.m, o.n, o.k, partial, arrived, shared);
    } else {
        with_tiles<V>(o.m, o.n, be.multiprocessors(), [&](auto tiles) {
            using C = decltype(tiles);
            be.launch_with_shared(KernelInstance<V, typename C::template_args>{}, C::grid(o.m, o.n), C::block(),
                                  V::meta.dynamic_shared_bytes, o.a, o.b, o.c, o.m, o.n, o.k);
        });
    }
}

}  // namespace warplab::matmul
