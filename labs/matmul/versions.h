// The matrix-multiply ladder: one entry per version, in order. Each entry
// names its kernel (file, function template and template arguments), its tile
// sizes, its block and grid. The CLI, viewer, benchmarks, tests and grader all
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

// Where every matmul kernel lives: entry names read "warplab::matmul::<kernel><tile sizes>".
inline constexpr const char kKernelNamespace[] = "warplab::matmul";

// The problem of one launch: C (M×N) = A (M×K) · B (K×N), row-major, on the device.
struct Operands {
    const float* a;
    const float* b;
    float* c;
    unsigned m, n, k;
};

constexpr unsigned ceil_div(std::size_t x, unsigned d) { return static_cast<unsigned>((x + d - 1) / d); }

// A version whose block covers a TILE_M×TILE_N tile of C with a THREADS_X×THREADS_Y
// block; the grid is (ceil(N / TILE_N), ceil(M / TILE_M)) unless `transposed_grid`
// (v1 walks rows with x).
template <unsigned TILE_M, unsigned TILE_N, unsigned THREADS_X, unsigned THREADS_Y, bool transposed_grid = false>
struct Tiling {
    static constexpr unsigned tile_m = TILE_M, tile_n = TILE_N;
    static dim3 block() { return dim3(THREADS_X, THREADS_Y); }
    static constexpr unsigned threads = THREADS_X * THREADS_Y;
    static dim3 grid(std::size_t m, std::size_t n)
    {
        return transposed_grid ? dim3(ceil_div(m, TILE_M), ceil_div(n, TILE_N)) : dim3(ceil_div(n, TILE_N), ceil_div(m, TILE_M));
    }
    // What `warplab trace` runs by default: one block's worth of C (at least
    // 64×64), and K = 64, a few tiles deep.
    static constexpr std::size_t trace_m = TILE_M > 64 ? TILE_M : 64, trace_n = TILE_N > 64 ? TILE_N : 64, trace_k = 64;
};

struct V1 : Tiling<32, 32, 32, 32, true> {
    static constexpr VersionMeta meta{
        "v1", "naive", "matmul_naive", "kernels/matmul/01_naive.cuh",
        "naive: one thread per element of C; lanes of a warp walk down a column of C",
        "the starting point: Kirk and Hwu's kernel for any M, N, K and many blocks",
        "correct and slow: a warp's loads of A touch 32 sectors per request", 1024, false, 1024};
    using template_args = Values<32, 32>;
};

struct V2 : Tiling<32, 32, 32, 32> {
    static constexpr VersionMeta meta{
        "v2", "coalesced", "matmul_coalesced", "kernels/matmul/02_coalesced.cuh",
        "global-memory coalescing: lanes of a warp walk along a row of C",
        "row and col swapped their thread index",
        "B loads 4 sectors per request, A loads 1 (broadcast)", 1024, false, 1024};
    using template_args = Values<32, 32>;
};

struct V3 : Tiling<32, 32, 32, 32> {
    static constexpr VersionMeta meta{
        "v3", "shared_tiles", "matmul_shared_tiles", "kernels/matmul/03_shared_tiles.cuh",
        "shared-memory tiling: 32×32 tiles of A and B, loaded once per block",
        "the dot product reads shared tiles; the block loads them tile by tile",
        "32x fewer global loads; two steps per tile (load, compute)", 1024, false, 1024};
    using template_args = Values<32>;
};

struct V4 : Tiling<64, 64, 64, 8> {
    static constexpr VersionMeta meta{
        "v4", "1d_blocktiling", "matmul_1d_blocktiling", "kernels/matmul/04_1d_blocktiling.cuh",
        "1D register blocking: each thread computes a column of 8 results",
        "64×64 block tiles, BK = 8; one B value in a register serves 8 products",
        "1.125 shared loads per product instead of 2", 512, false, 512};
    using template_args = Values<64, 64, 8, 8>;
};

struct V5 : Tiling<128, 128, 16, 16> {
    static constexpr VersionMeta meta{
        "v5", "2d_blocktiling", "matmul_2d_blocktiling", "kernels/matmul/05_2d_blocktiling.cuh",
        "2D register blocking: each thread computes an 8×8 block of C",
        "128×128 block tiles, 256 threads; an outer product of 8 + 8 registers per step",
        "0.25 shared loads per product; 2- and 4-way bank conflicts on the scalar reads", 256, false, 256};
    using template_args = Values<128, 128, 8, 8, 8>;
};

struct V6 : Tiling<128, 128, 16, 16> {
    static constexpr VersionMeta meta{
        "v6", "vectorized", "matmul_vectorized", "kernels/matmul/06_vectorized.cuh",
        "128-bit loads and stores; A's tile stored transposed in shared memory",
        "float4 global loads, float4 shared reads of As and Bs, float4 stores of C",
        "a quarter of the load instructions; 2-way conflicts on As stores and Bs reads", 256, false, 256};
    using template_args = Values<128, 128, 8, 8, 8>;
};

struct V7 : Tiling<128, 128, 16, 16> {
    static constexpr VersionMeta meta{
        "v7", "conflict_free", "matmul_conflict_free", "kernels/matmul/07_conflict_free.cuh",
        "bank-conflict-free shared layout: As padded, Bs swizzled",
        "As rows are BM + 4 floats; float4 c of a Bs row is stored at c ^ ((c >> 3) & 1)",
        "zero bank conflicts in every step", 256, false, 256};
    using template_args = Values<128, 128, 8, 8, 8>;
};

// v8's tiles: the fastest configuration measured on the H100 (see the kernel's header).
struct V8 : Tiling<128, 128, 32, 4> {
    static constexpr VersionMeta meta{
        "v8", "warptiled", "matmul_warptiled", "kernels/matmul/08_warptiled.cuh",
        "warptiling and double buffering, tuned for Hopper",
        "128 threads; warps own 64×64 tiles, lanes 8×16 in strided 4×4 pieces; BK = 16; two shared stages",
        "one barrier per tile, global latency hidden; 0.94x cuBLAS at 4096^3 on the H100", 128, false, 128};
    using template_args = Values<128, 128, 16, 64, 64, 8, 16, 2>;
};

// v9 keeps v8's tiles; the emulator has no tensor cores, so it runs only on a GPU.
struct V9 : Tiling<128, 128, 32, 4> {
    static constexpr VersionMeta meta{
        "v9", "tensor_cores", "matmul_tensor_cores", "kernels/matmul/09_tensor_cores.cuh",
        "tensor cores: mma.sync multiplies 16×8×8 pieces in TF32",
        "v8's tiles and stages; mma.sync on its fragments instead of FFMA; As untransposed, Bs rows padded by 8",
        "several times v8, errors of TF32's size (about 1e-4); compared with cuBLAS in TF32", 128, false, 128, false,
        "its mma.sync is a tensor-core instruction, which warplab's emulator (a PTX interpreter, "
        "one lane at a time) does not implement"};
    static constexpr Arithmetic arithmetic = Arithmetic::Tf32;
    using template_args = Values<128, 128, 16, 64, 64, 2>;
};

using Versions = std::tuple<V1, V2, V3, V4, V5, V6, V7, V8, V9>;

// Every kernel takes (A, B, C, M, N, K); the version's tile sizes are its template arguments.
template <class V, class Backend> void launch(Backend& be, const Operands& o)
{
    be.launch(KernelInstance<V, typename V::template_args>{}, V::grid(o.m, o.n), V::block(), o.a, o.b, o.c, o.m, o.n, o.k);
}

}  // namespace warplab::matmul
