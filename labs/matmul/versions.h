// The matrix-multiply ladder: one entry per version, in order. Each entry
// names its kernel (kernels/matmul/NN_<name>.cuh, function template
// matmul_<name>) and its tiles, by name; its block, grid and template
// arguments follow from the tiles. The CLI, viewer, benchmarks, tests and grader all
// read this list. It does not include the kernels: the host compiler reads it
// without CUDA, and a version's kernel is found in the lab's PTX by name
// (labs/common/kernel_instance.h).
#pragma once
#include <cstddef>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#include "labs/matmul/problem.h"  // Arithmetic
#if !defined(__CUDACC__)
#include "warplab/emu/emulator.h"  // dim3 without CUDA
#endif

namespace warplab::matmul {

// Where every matmul kernel lives: version vN's is matmul_<name> in
// kernels/matmul/0N_<name>.cuh; PTX entry names read "warplab::matmul::matmul_<name><tile sizes>".
inline constexpr KernelFiles kKernels{.lab = "matmul", .prefix = "matmul"};

// The problem of one launch: C (M×N) = A (M×K) · B (K×N), row-major, on the device.
struct Operands {
    const float* a;
    const float* b;
    float* c;
    unsigned m, n, k;
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

// v8's tiles: the fastest configuration measured on the H100 (see the kernel's header).
struct V8 : Tiled<Tiles{.bm = 128, .bn = 128, .bk = 16, .tm = 8, .tn = 16, .wm = 64, .wn = 64, .min_blocks = 2}> {
    static constexpr VersionMeta meta{
        .id = "v8",
        .name = "warptiled",
        .idea = "warptiling and double buffering, tuned for Hopper",
        .changed = "128 threads; warps own 64×64 tiles, lanes 8×16 in strided 4×4 pieces; BK = 16; two shared stages",
        .expected = "one barrier per tile, global latency hidden; near cuBLAS at 4096^3",
        .bench_block = threads,
    };
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.wm, tiles.wn, tiles.tm, tiles.tn, tiles.min_blocks>;
};

// v9 keeps v8's tiles; the emulator has no tensor cores, so it runs only on a GPU.
struct V9 : Tiled<Tiles{.bm = 128, .bn = 128, .bk = 16, .wm = 64, .wn = 64, .min_blocks = 2}> {
    static constexpr VersionMeta meta{
        .id = "v9",
        .name = "tensor_cores",
        .idea = "tensor cores: mma.sync multiplies 16×8×8 pieces in TF32",
        .changed = "v8's tiles and stages; mma.sync on its fragments instead of FFMA; As untransposed, Bs rows padded by 8",
        .expected = "several times v8, errors of TF32's size (about 1e-4); compared with cuBLAS in TF32",
        .bench_block = threads,
        .gpu_only = "its mma.sync is a tensor-core instruction, which warplab's emulator (a PTX interpreter, "
                    "one lane at a time) does not implement",
    };
    static constexpr Arithmetic arithmetic = Arithmetic::Tf32;
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, tiles.wm, tiles.wn, tiles.min_blocks>;
};

// v10: one warpgroup (4 warps) per block, its 128×64 tile of C; each warp's
// accumulators are 16 columns of it, all 128 rows (wgmma's m64n128k8 on C^T).
struct V10 : Tiled<Tiles{.bm = 128, .bn = 64, .bk = 32, .wm = 128, .wn = 16}> {
    static constexpr unsigned stages = 2;  // 2 × 24 KB of tiles: within a block's 48 KB of static shared memory
    static constexpr VersionMeta meta{
        .id = "v10",
        .name = "wgmma",
        .idea = "Hopper's warpgroup tensor cores: wgmma multiplies 64×128×8 pieces in TF32, fed by cp.async",
        .changed = "mma.sync becomes wgmma (a warpgroup of 4 warps per 128×64 tile, C^T = B^T·A^T); tiles by cp.async, "
                   "BK = 32, two stages; A's tile in the 128-byte swizzle its matrix descriptor names",
        .expected = "faster than v9, same TF32 error; short of cuBLAS TF32 (one wgmma group in flight, every thread issues copies)",
        .bench_block = threads,
        .gpu_only = "its wgmma is a Hopper tensor-core instruction (sm_90a), which warplab's emulator (a PTX interpreter, "
                    "one lane at a time) does not implement",
    };
    // The lab's PTX, which the GPU trace instruments, is built for compute_90, where wgmma does not exist.
    static constexpr const char* untraced = "its wgmma exists only in sm_90a code, and the PTX warplab instruments is "
                                            "compute_90's; warplab bench times it and the gpu tests check it";
    static constexpr Arithmetic arithmetic = Arithmetic::Tf32;
    using template_args = Values<tiles.bm, tiles.bn, tiles.bk, stages>;
};

using Versions = std::tuple<V1, V2, V3, V4, V5, V6, V7, V8, V9, V10>;

// Every kernel takes (A, B, C, M, N, K); the version's tile sizes are its template arguments.
template <class V, class Backend> void launch(Backend& be, const Operands& o)
{
    be.launch(KernelInstance<V, typename V::template_args>{}, V::grid(o.m, o.n), V::block(), o.a, o.b, o.c, o.m, o.n, o.k);
}

}  // namespace warplab::matmul
