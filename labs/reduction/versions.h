// The reduction ladder: one entry per version, in order. Each entry names its
// kernel file and says how to launch one pass over m elements.
#pragma once
#include <cstddef>
#include <tuple>

#include "kernels/reduction/01_interleaved_divergent.cuh"
#include "kernels/reduction/02_interleaved_strided.cuh"
#include "kernels/reduction/03_sequential_addressing.cuh"
#include "labs/common/version.h"

namespace warplab::reduction {

// One pass: every block turns BLOCK * elems_per_thread inputs into one partial sum.
template <unsigned ElemsPerThread> struct OneElementGrid {
    static constexpr unsigned elems_per_thread = ElemsPerThread;
    static std::size_t blocks(std::size_t m, unsigned block)
    {
        const std::size_t per_block = std::size_t(block) * ElemsPerThread;
        return (m + per_block - 1) / per_block;
    }
};

struct V1 : OneElementGrid<1> {
    static constexpr VersionMeta meta{
        "v1", "interleaved_divergent", "reduce_interleaved_divergent", "kernels/reduction/01_interleaved_divergent.cuh",
        "interleaved addressing; thread tid works when tid % (2*s) == 0",
        "the starting point: Harris's first kernel",
        "correct; every warp is only partly active at every step of the tree", 32, false};
    template <unsigned B, class T, class Backend, class... A> static void launch(Backend& be, dim3 grid, A... args)
    {
        be.launch(meta.kernel, reduce_interleaved_divergent<B, T>, grid, dim3(B), args...);
    }
};

struct V2 : OneElementGrid<1> {
    static constexpr VersionMeta meta{
        "v2", "interleaved_strided", "reduce_interleaved_strided", "kernels/reduction/02_interleaved_strided.cuh",
        "strided index 2*s*tid: contiguous threads do the work",
        "the divergent `tid % (2*s)` branch became a strided index",
        "no partially-active warps while >= 32 threads work; 2- to 8-way bank conflicts instead", 32, false};
    template <unsigned B, class T, class Backend, class... A> static void launch(Backend& be, dim3 grid, A... args)
    {
        be.launch(meta.kernel, reduce_interleaved_strided<B, T>, grid, dim3(B), args...);
    }
};

struct V3 : OneElementGrid<1> {
    static constexpr VersionMeta meta{
        "v3", "sequential_addressing", "reduce_sequential_addressing", "kernels/reduction/03_sequential_addressing.cuh",
        "sequential addressing: fold the upper half onto the lower half",
        "the stride runs downwards and thread tid works on element tid",
        "no bank conflicts and no divergence while >= 32 threads work; half the threads idle from the start", 32, false};
    template <unsigned B, class T, class Backend, class... A> static void launch(Backend& be, dim3 grid, A... args)
    {
        be.launch(meta.kernel, reduce_sequential_addressing<B, T>, grid, dim3(B), args...);
    }
};

using Versions = std::tuple<V1, V2, V3>;

}  // namespace warplab::reduction
