// The image ladder (after "Compute Shader Optimizations for AMD GPUs:
// Parallel Reduction"): one entry per version, in order, and the lab's own
// later pass. Each entry names its kernel (kernels/image/NN_<name>.cuh,
// function template image_<name><BX, BY>), the group it runs by default, the
// pixels each thread fetches and the groups it accepts; the tile of pixels a
// group covers, and so the grid of partials, follow. The CLI, viewer,
// benchmarks, tests and grader read this list. It does not include the
// kernels: the host compiler reads it without CUDA.
#pragma once
#include <cstddef>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#if !defined(__CUDACC__)
#include "warplab/dim3.h"
#endif

namespace warplab::image {

inline constexpr KernelFiles kKernels{
    .lab = "image",
    .prefix = "image",
    .user_shared = {[](unsigned x, unsigned y, unsigned) { return x * y * unsigned(sizeof(float)); },
                    "threads × sizeof(float), one luminance a thread, as the AMD blog's shaders declare"},
};

// A group of BX×BY threads (the kernels' template arguments).
struct Group {
    unsigned x = 0, y = 0;
    constexpr unsigned threads() const { return x * y; }
    bool operator==(const Group&) const = default;
};

// The groups the kernels are built for (`--block WxH` picks one): every
// power-of-two thread count from 16 to 1024, square or wide.
inline constexpr Group kGroups[] = {{4, 4}, {8, 4}, {8, 8}, {16, 4}, {16, 8}, {16, 16}, {32, 8}, {32, 16}, {32, 32}};

constexpr unsigned ceil_div(std::size_t x, unsigned d) { return static_cast<unsigned>((x + d - 1) / d); }

// Each thread adds FX×FY pixels, BX and BY apart: a group covers a
// (FX·BX)×(FY·BY) tile, and the first pass leaves one partial sum per tile.
template <unsigned FX, unsigned FY, unsigned GX, unsigned GY> struct Fetches {
    static constexpr unsigned fetch_x = FX, fetch_y = FY;
    static constexpr Group group{GX, GY};  // the blog's group, which bench and trace default to
    static constexpr unsigned min_threads = 1, threads_multiple = 1;
    static dim3 grid(std::size_t width, std::size_t height, Group g) { return dim3(ceil_div(width, FX * g.x), ceil_div(height, FY * g.y)); }
};

struct V1 : Fetches<1, 1, 16, 16> {
    static constexpr VersionMeta meta{
        .id = "v1", .name = "interleaved",
        .idea = "interleaved addressing: thread tid adds element 2·s·tid + s (the blog's first shader)",
        .changed = "the starting point: 16×16 groups, one pixel a thread, 120×68 partials for 1080p",
        .expected = "correct; 2- to 8-way bank conflicts in the tree",
        .bench_block = 256,
    };
};

struct V2 : Fetches<1, 1, 16, 16> {
    static constexpr VersionMeta meta{
        .id = "v2", .name = "sequential",
        .idea = "sequential addressing: fold the upper half onto the lower half",
        .changed = "the stride runs downwards; thread tid adds element tid + s",
        .expected = "no bank conflicts; the blog saw no change on its newer GPUs",
        .bench_block = 256,
    };
};

struct V3 : Fetches<1, 1, 16, 16> {
    static constexpr VersionMeta meta{
        .id = "v3", .name = "unrolled_tail",
        .idea = "unrolled tail: barriers until one warp is left, then shuffles",
        .changed = "the barrier loop stops at 32 values; warp 0 finishes with unrolled __shfl_down_sync rounds",
        .expected = "five fewer __syncthreads() a group; right on NVIDIA since Volta",
        .bench_block = 256,
    };
};

struct V3Wave64 : Fetches<1, 1, 16, 16> {
    static constexpr VersionMeta meta{
        .id = "v3-wave64", .name = "unrolled_tail_wave64",
        .idea = "the blog's tail: `if (GI < 64)`, volatile shared memory, offsets 32..1, no barrier",
        .changed = "as v3, but barriers stop at 64 values and 64 threads finish through volatile shared memory",
        .expected = "right only on a lockstep 64-wide wavefront (emulator: --warp-size 64 --schedule lockstep); "
                    "a data race at warp width 32, so the GPU benchmark leaves it out",
        .variant = true,
        .bench_block = 256,
    };
    static constexpr unsigned min_threads = 128;  // the tail reads sdata[tid + 32] for tid < 64
    static constexpr bool races_on_nvidia = true;
};

struct V4 : Fetches<2, 1, 8, 8> {
    static constexpr VersionMeta meta{
        .id = "v4", .name = "two_fetches",
        .idea = "two fetches a thread, 8×8 = 64-thread groups",
        .changed = "each thread adds two pixels BX apart; the tile is 16×8 (120×135 partials for 1080p)",
        .expected = "half the threads per pixel; the blog's GPUs all gained",
        .bench_block = 64,
    };
};

struct V5 : Fetches<2, 2, 4, 4> {
    static constexpr VersionMeta meta{
        .id = "v5", .name = "four_fetches",
        .idea = "four fetches a thread (2×2), 4×4 = 16-thread groups",
        .changed = "two more fetches a row of groups further down; the blog's 16-thread group (240×135 partials for 1080p)",
        .expected = "the blog: nearly linear gain; on NVIDIA half of each warp is empty and an SM holds 32 groups",
        .bench_block = 16,
    };
};

struct V6 : Fetches<2, 2, 8, 8> {
    static constexpr VersionMeta meta{
        .id = "v6", .name = "four_fetches_64",
        .idea = "four fetches a thread, 8×8 = 64-thread groups",
        .changed = "only the group: 64 threads (v5's body), a 16×16 tile, 120×68 partials for 1080p",
        .expected = "four times the threads an SM can hold compared with v5; the blog's fastest of these",
        .bench_block = 64,
    };
    static constexpr unsigned threads_multiple = 64;
};

// Four adjacent pixels a load (16 bytes) in each of 8 rows BY apart, so the
// tile is (4·BX)×(8·BY); the last group adds the partials in the same launch.
struct V7 : Fetches<4, 8, 32, 8> {
    static constexpr VersionMeta meta{
        .id = "v7", .name = "vector_single_pass",
        .idea = "16-byte loads of four pixels, eight rows in flight a thread, and one pass: the last group adds the partials",
        .changed = "32×8 groups over 128×64 tiles (15×17 partials for 1080p); shuffles and one word a warp; "
                   "the last group, counted with an atomic, sums the partials: no later pass",
        .expected = "one launch instead of three, a quarter of the loads: above CUB's two launches",
        .bench_block = 256,
    };
    static constexpr unsigned threads_multiple = 32;
    // Its partials buffer holds the tiles' sums, the total and a count of groups done.
    static constexpr bool single_pass = true;
};

using Versions = std::tuple<V1, V2, V3, V3Wave64, V4, V5, V6, V7>;

// The later passes (kernels/image/00_sum_partials.cuh): 16×16 groups sum
// 16×16 tiles of the partials until one value is left. Not a version: every
// version shares it, and a user's kernel stands in for the first pass only.
struct SumPartials {
    static constexpr bool lab_pass = true;
    static constexpr VersionMeta meta{
        .id = "sum", .name = "sum_partials",
        .idea = "the grid of partial sums reduced to one value, 16×16 at a time",
        .changed = "", .expected = "",
    };
    static constexpr Group group{16, 16};
    static_assert(group.x == group.y, "each later pass shrinks the grid by the same factor both ways");
};

template <class V, unsigned BX, unsigned BY> using Kernel = KernelInstance<V, Values<BX, BY>>;

// Whether version V's kernel takes group g (built for it, and enough threads).
template <class V> constexpr bool takes(Group g)
{
    return g.threads() >= V::min_threads && g.threads() % V::threads_multiple == 0;
}

// Calls f.template operator()<BX, BY>() for the built group equal to g; false when there is none.
template <class F> bool with_group(Group g, F&& f)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return ((kGroups[I] == g ? (f.template operator()<kGroups[I].x, kGroups[I].y>(), true) : false) || ...);
    }(std::make_index_sequence<std::size(kGroups)>{});
}

// One pass over w×h values: the first pass of version V over the image, or a later one.
template <class V, unsigned BX, unsigned BY, class Backend, class In>
void launch_pass(Backend& be, In in, unsigned w, unsigned h, float* out, dim3 grid)
{
    if constexpr (requires { V::lab_pass; }) {
        be.launch(Kernel<V, BX, BY>{}, grid, dim3(BX, BY), in, w, h, out);
    } else if constexpr (takes<V>(Group{BX, BY})) {
        be.launch(Kernel<V, BX, BY>{}, grid, dim3(BX, BY), in, w, h, out);
    }
}

}  // namespace warplab::image
