// The reduction ladder: one entry per version, in order. Each entry names its
// kernel (kernels/reduction/NN_<name>.cuh, function template reduce_<name>),
// the smallest block it supports, how big the grid of one pass is, and how to
// launch it. The CLI, viewer, benchmarks, tests and grader all read
// this list. It does not include the kernels: the host compiler reads it
// without CUDA, and a version's kernel is found in the lab's PTX by name
// (labs/common/kernel_instance.h).
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#if !defined(__CUDACC__)
#include "warplab/dim3.h"
#endif

namespace warplab::reduction {

// Where every reduction kernel lives: version vN's is reduce_<name> in
// kernels/reduction/0N_<name>.cuh; PTX entry names read "warplab::reduction::reduce_<name><B, T>".
inline constexpr KernelFiles kKernels{
    .lab = "reduction",
    .prefix = "reduce",
    .user_shared = {[](unsigned x, unsigned y, unsigned e) { return x * y * e; },
                    "threads × sizeof(T), as the host code of Harris's \"Optimizing Parallel Reduction in CUDA\" gives"},
};

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

// Blocks of one wave: as many as the SMs hold at full occupancy (2048
// threads each on Hopper), fewer where m elements give each thread fewer
// than `per_thread`.
inline std::size_t one_wave_blocks(std::size_t m, std::size_t per_thread, unsigned block, unsigned sms)
{
    const std::size_t per_block = per_thread * block;
    const std::size_t needed = (m + per_block - 1) / per_block;
    return std::max<std::size_t>(1, std::min<std::size_t>(needed, std::size_t(sms) * (2048 / block)));
}

// Grid of one wave, at least two elements a thread.
struct OneWave {
    static constexpr bool single_pass = false;
    static std::size_t blocks(std::size_t m, unsigned block, unsigned sms) { return one_wave_blocks(m, 2, block, sms); }
};

struct V1 : ElementsPerThread<1> {
    static constexpr VersionMeta meta{
        .id = "v1",
        .name = "interleaved_divergent",
        .idea = "interleaved addressing; thread tid works when tid % (2*s) == 0",
        .changed = "the starting point: Harris's first kernel",
        .expected = "correct; every warp is only partly active at every step of the tree",
    };
    static constexpr unsigned min_block = 32;
};

struct V2 : ElementsPerThread<1> {
    static constexpr VersionMeta meta{
        .id = "v2",
        .name = "interleaved_strided",
        .idea = "strided index 2*s*tid: contiguous threads do the work",
        .changed = "the divergent `tid % (2*s)` branch became a strided index",
        .expected = "no partially-active warps while >= 32 threads work; 2- to 8-way bank conflicts instead",
    };
    static constexpr unsigned min_block = 32;
};

struct V3 : ElementsPerThread<1> {
    static constexpr VersionMeta meta{
        .id = "v3",
        .name = "sequential_addressing",
        .idea = "sequential addressing: fold the upper half onto the lower half",
        .changed = "the stride runs downwards and thread tid works on element tid",
        .expected = "no bank conflicts and no divergence while >= 32 threads work; half the threads idle from the start",
    };
    static constexpr unsigned min_block = 32;
};

struct V4 : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        .id = "v4",
        .name = "first_add_during_load",
        .idea = "first add during the global load: each thread loads two elements",
        .changed = "the load step adds g_in[i] and g_in[i + blockDim.x]; half as many blocks",
        .expected = "half the blocks for the same data; no thread idle in step 0",
    };
    static constexpr unsigned min_block = 32;
};

struct V5 : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        .id = "v5",
        .name = "unroll_last_warp",
        .idea = "unroll the last warp: no block barrier once only warp 0 works",
        .changed = "the loop stops at s > 32; warp 0 finishes with an unrolled tail ordered by __syncwarp()",
        .expected = "six fewer __syncthreads() per block; correct on Volta and later",
    };
    static constexpr unsigned min_block = 64;  // the warp tail adds sdata[tid + 32]
};

struct V5Racy : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        .id = "v5-racy",
        .name = "unroll_last_warp_racy",
        .idea = "Harris's original volatile-only warp tail, kept to show the hazard",
        .changed = "as v5 without __syncwarp(): relies on warp lockstep",
        .expected = "a data race since Volta: the emulator's independent schedule and racecheck report it",
        .variant = true,
    };
    static constexpr unsigned min_block = 64;
};

struct V6 : ElementsPerThread<2> {
    static constexpr VersionMeta meta{
        .id = "v6",
        .name = "complete_unroll",
        .idea = "completely unrolled: the block size is a template parameter",
        .changed = "the loop over s became steps guarded by `if (BLOCK >= ...)`, decided at compile time",
        .expected = "no loop overhead; the same trace as v5",
    };
    static constexpr unsigned min_block = 64;
};

struct V7 : OneWave {
    static constexpr VersionMeta meta{
        .id = "v7",
        .name = "grid_stride",
        .idea = "multiple elements per thread: a grid-stride loop over one wave of blocks",
        .changed = "the two-element load became a loop; the grid is sized from the SM count",
        .expected = "tree work per element falls towards zero; near DRAM bandwidth for large n",
    };
    static constexpr unsigned min_block = 64;
};

struct V8 : OneWave {
    static constexpr VersionMeta meta{
        .id = "v8",
        .name = "warp_shuffle",
        .idea = "warp shuffle (__shfl_down_sync) for the last warp",
        .changed = "the running sum stays in a register; warp 0 ends with five shuffle rounds",
        .expected = "no shared-memory access in the warp tail",
    };
    static constexpr unsigned min_block = 64;
};

struct V9 : OneWave {
    // Whichever block ends last adds the partials, so the watched block's
    // trace can change from run to run.
    static constexpr bool single_pass = true;
    static constexpr VersionMeta meta{
        .id = "v9",
        .name = "vector_single_pass",
        .idea = "128-bit loads, shuffle block reduction, one pass (last block adds the partials)",
        .changed = "vector loads four deep, shuffles instead of the shared tree, one launch",
        .expected = "near DRAM bandwidth at 2^28; one launch at every size",
        .bench_block = 1024,  // on the H100 at 2^28, 1024 threads x 2 blocks per SM beat 256 x 8 and 512 x 4
    };
    static constexpr unsigned min_block = 64;
    // One int4 (four elements) a thread at least.
    static std::size_t blocks(std::size_t m, unsigned block, unsigned sms) { return one_wave_blocks(m / 4, 1, block, sms); }
};

struct V10 {
    static constexpr bool single_pass = true;
    static constexpr VersionMeta meta{
        .id = "v10",
        .name = "bulk_copy",
        .idea = "Hopper's bulk copy engine streams 32 KB pieces into a shared-memory ring; threads only add",
        .changed = "v9's per-thread vector loads became bulk copies (cp.async.bulk), six pieces in flight per SM, "
                   "each waited for on an mbarrier; one block per SM; without a ring, a round's four loads go out "
                   "together, on a grid of one round a thread; the last block's handshake is one acquire-release atomic",
        .expected = "a few percent above v9 far beyond L2, where both are near the DRAM bandwidth; below, no ring: "
                    "every thread's four loads in flight at once, fewer blocks to count in, a shorter finish",
        .bench_block = 1024,
        // The ring: six of the kernel's 32 KB pieces, the most that fits beside
        // its own variables in the H100's 227 KB per block.
        .dynamic_shared_bytes = 6 * 32 * 1024,
    };
    static constexpr unsigned min_block = 64;
    static constexpr unsigned piece_bytes = 32 * 1024;  // the kernel's kPieceBytes (kernels.cuh checks)
    // The launch shape by size: the ring only where every SM gets at least
    // 32 pieces to repay its start-up (the first piece must land whole before
    // any add). On the H100, loads were faster up to 2^24 ints (16 pieces an
    // SM) and the ring from 2^28 (248). Below, no ring, and a grid of one
    // wave that gives each thread four int4: one round of loads in flight
    // (the kernel's sum_loads_in_flight) and, at 2^20, 64 blocks to count in
    // rather than v9's 256 (each count is an atomic on one word, and the last
    // block waits for them all).
    static constexpr unsigned min_pieces_per_sm = 32;
    static constexpr unsigned int4_per_thread = 4;
    static bool ring(std::size_t m, unsigned sms) { return m * 4 / piece_bytes >= std::size_t(min_pieces_per_sm) * sms; }
    static unsigned shared_bytes(std::size_t m, unsigned sms) { return ring(m, sms) ? meta.dynamic_shared_bytes : 0; }
    static std::size_t blocks(std::size_t m, unsigned block, unsigned sms)
    {
        if (!ring(m, sms)) return one_wave_blocks(m / 4, int4_per_thread, block, sms);
        return std::min<std::size_t>(m * 4 / piece_bytes, sms);  // int and float are 4 bytes
    }
    // Which of the two launches runs at m elements, in words (RunResult::path, the bench's note).
    static std::string path(std::size_t m, unsigned block, unsigned sms)
    {
        const std::size_t b = blocks(m, block, sms);
        const std::string grid = std::to_string(b) + (b == 1 ? " block" : " blocks");
        if (ring(m, sms)) return "streams through its ring of bulk copies, one block per SM (" + grid + ")";
        return "gives no ring here (under " + std::to_string(min_pieces_per_sm) +
               " pieces an SM): rounds of four loads a thread, as v9's, " + grid;
    }
};

using Versions = std::tuple<V1, V2, V3, V4, V5, V5Racy, V6, V7, V8, V9, V10>;

// Every kernel is a template <unsigned BLOCK, class T>.
template <class V, unsigned B, class T> using Kernel = KernelInstance<V, TemplateArgs<Value<B>, T>>;

// The dynamic shared memory of V's launch for n elements: chosen by size
// where V says (v10's ring), else its entry's.
template <class V> unsigned dynamic_shared(std::size_t n, unsigned sms)
{
    if constexpr (requires { V::shared_bytes(n, sms); })
        return V::shared_bytes(n, sms);
    else
        return V::meta.dynamic_shared_bytes;
}

// Launches one pass of version V on any backend. The kernels take (in, out, n);
// the single-pass versions (in, partial, done, out, n), v10 with its ring of
// dynamic shared memory.
template <class V, unsigned B, class T, class Backend> void launch(Backend& be, dim3 grid, const Pass<T>& p)
{
    if constexpr (V::single_pass) {
        be.launch_with_shared(Kernel<V, B, T>{}, grid, dim3(B), dynamic_shared<V>(p.n, be.multiprocessors()), p.in,
                              p.partial, p.done, p.out, p.n);
    } else {
        be.launch_with_shared(Kernel<V, B, T>{}, grid, dim3(B), V::meta.dynamic_shared_bytes, p.in, p.out, p.n);
    }
}

}  // namespace warplab::reduction
