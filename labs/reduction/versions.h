// The reduction ladder: one entry per version, in order. Each entry names its
// kernel (file and function template), says how big the grid of one pass is,
// and how to launch it. The CLI, viewer, benchmarks, tests and grader all read
// this list. It does not include the kernels: the host compiler reads it
// without CUDA, and a version's kernel is found in the lab's PTX by name
// (labs/common/kernel_instance.h).
#pragma once
#include <algorithm>
#include <cstddef>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#if !defined(__CUDACC__)
#include "warplab/emu/emulator.h"  // dim3 without CUDA
#endif

namespace warplab::reduction {

// Where every reduction kernel lives: entry names read "warplab::reduction::<kernel><B, T>".
inline constexpr const char kKernelNamespace[] = "warplab::reduction";

// The buffers of one pass. Multi-pass versions read `in` and write one
// partial sum per block to `out`; the single-pass version also uses `partial`
// (one slot per block) and `done` (a counter that starts at zero).
template <class T> struct Pass {
    const T* in;
    T* out;
    T* partial;
    unsigned* done;
    unsigned n;
};

// Grid of a version that gives each block BLOCK * PerThread consecutive elements.
template <unsigned PerThread> struct ElementsPerThread {
    static constexpr bool single_pass = false;
    static std::size_t blocks(std::size_t m, unsigned block, unsigned /*sms*/)
    {
        const std::size_t per_block = std::size_t(block) * PerThread;
        return (m + per_block - 1) / per_block;
    }
};

// Grid of one wave: as many blocks as the SMs hold at full occupancy (2048
// threads each on Hopper), fewer when the data is small.
struct OneWave {
    static constexpr bool single_pass = false;
    static std::size_t blocks(std::size_t m, unsigned block, unsigned sms)
    {
        const std::size_t needed = (m + 2 * std::size_t(block) - 1) / (2 * std::size_t(block));
        return std::max<std::size_t>(1, std::min<std::size_t>(needed, std::size_t(sms) * (2048 / block)));
    }
};

struct V1 : ElementsPerThread<1> {
    static constexpr VersionMeta meta{
        "v1", "interleaved_divergent", "reduce_interleaved_divergent", "kernels/reduction/01_interleaved_divergent.cuh",
        "interleaved addressing; thread tid works when tid % (2*s) == 0",
        "the starting point: Harris's first kernel",
        "correct; every warp is only partly active at every step of the tree", 32, false};
};

struct V2 : ElementsPerThread<1> {
    static constexpr VersionMeta meta{
        "v2", "interleaved_strided", "reduce_interleaved_strided", "kernels/reduction/02_interleaved_strided.cuh",
        "strided index 2*s*tid: contiguous threads do the work",
        "the divergent `tid % (2*s)` branch became a strided index",
        "no partially-active warps while >= 32 threads work; 2- to 8-way bank conflicts instead", 32, false};
};

struct V3 : ElementsPerThread<1> {
    static constexpr VersionMeta meta{
        "v3", "sequential_addressing", "reduce_sequential_addressing", "kernels/reduction/03_sequential_addressing.cuh",
        "sequential addressing: fold the upper half onto the lower half",
        "the stride runs downwards and thread tid works on element tid",
        "no bank conflicts and no divergence while >= 32 threads work; half the threads idle from the start", 32, false};
};

struct V4 : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        "v4", "first_add_during_load", "reduce_first_add_during_load", "kernels/reduction/04_first_add_during_load.cuh",
        "first add during the global load: each thread loads two elements",
        "the load step adds g_in[i] and g_in[i + blockDim.x]; half as many blocks",
        "half the blocks for the same data; no thread idle in step 0", 32, false};
};

struct V5 : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        "v5", "unroll_last_warp", "reduce_unroll_last_warp", "kernels/reduction/05_unroll_last_warp.cuh",
        "unroll the last warp: no block barrier once only warp 0 works",
        "the loop stops at s > 32; warp 0 finishes with an unrolled tail ordered by __syncwarp()",
        "six fewer __syncthreads() per block; correct on Volta and later", 64, false};
};

struct V5Racy : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        "v5-racy", "unroll_last_warp_racy", "reduce_unroll_last_warp_racy", "kernels/reduction/05_unroll_last_warp_racy.cuh",
        "Harris's original volatile-only warp tail, kept to show the hazard",
        "as v5 without __syncwarp(): relies on warp lockstep",
        "a data race since Volta: the emulator's independent schedule and racecheck report it", 64, true};
};

struct V6 : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        "v6", "complete_unroll", "reduce_complete_unroll", "kernels/reduction/06_complete_unroll.cuh",
        "completely unrolled: the block size is a template parameter",
        "the loop over s became steps guarded by `if (BLOCK >= ...)`, decided at compile time",
        "no loop overhead; the same trace as v5", 64, false};
};

struct V7 : OneWave {
    static constexpr VersionMeta meta{
        "v7", "grid_stride", "reduce_grid_stride", "kernels/reduction/07_grid_stride.cuh",
        "multiple elements per thread: a grid-stride loop over one wave of blocks",
        "the two-element load became a loop; the grid is sized from the SM count",
        "tree work per element falls towards zero; near DRAM bandwidth for large n", 64, false};
};

struct V8 : OneWave {
    static constexpr VersionMeta meta{
        "v8", "warp_shuffle", "reduce_warp_shuffle", "kernels/reduction/08_warp_shuffle.cuh",
        "warp shuffle (__shfl_down_sync) for the last warp",
        "the running sum stays in a register; warp 0 ends with five shuffle rounds",
        "no shared-memory access in the warp tail", 64, false};
};

struct V9 : OneWave {
    static constexpr bool single_pass = true;
    static constexpr VersionMeta meta{
        "v9", "vector_single_pass", "reduce_vector_single_pass", "kernels/reduction/09_vector_single_pass.cuh",
        "128-bit loads, shuffle block reduction, one pass (last block adds the partials)",
        "vector loads four deep, shuffles instead of the shared tree, one launch",
        "near DRAM bandwidth at 2^28; one launch at every size", 64, false,
        1024,  // measured on the H100 at 2^28: 1024 threads x 2 blocks per SM beat 256 x 8 and 512 x 4
        true};
    static std::size_t blocks(std::size_t m, unsigned block, unsigned sms)
    {
        const std::size_t needed = (m / 4 + block - 1) / block;  // one int4 per thread at least
        return std::max<std::size_t>(1, std::min<std::size_t>(needed, std::size_t(sms) * (2048 / block)));
    }
};

using Versions = std::tuple<V1, V2, V3, V4, V5, V5Racy, V6, V7, V8, V9>;

// Every kernel is a template <unsigned BLOCK, class T>.
template <class V, unsigned B, class T> using Kernel = KernelInstance<V, TemplateArgs<Value<B>, T>>;

// Launches one pass of version V on any backend. The kernels take (in, out, n);
// the single-pass version (in, partial, done, out, n).
template <class V, unsigned B, class T, class Backend> void launch(Backend& be, dim3 grid, const Pass<T>& p)
{
    if constexpr (V::single_pass) {
        be.launch(Kernel<V, B, T>{}, grid, dim3(B), p.in, p.partial, p.done, p.out, p.n);
    } else {
        be.launch(Kernel<V, B, T>{}, grid, dim3(B), p.in, p.out, p.n);
    }
}

}  // namespace warplab::reduction
