// The transpose kernels as nvcc compiles them (nvcc only): each version's
// function template and the copy kernel, for the lab's PTX (kernels.cu) and
// the GPU benchmark.
#pragma once
#include "kernels/transpose/00_copy.cuh"
#include "kernels/transpose/01_naive.cuh"
#include "kernels/transpose/02_coalesced.cuh"
#include "kernels/transpose/03_padded.cuh"
#include "kernels/transpose/04_rows_per_thread.cuh"
#include "kernels/transpose/05_tall_tiles.cuh"
#include "labs/transpose/versions.h"

namespace warplab::transpose {

// KernelOf<V>::fn<tile sizes...>(): the __global__ function of version V,
// transpose_<name> (the name checked against the version's entry).
template <class V> struct KernelOf;

#define WL_TRANSPOSE_KERNEL(V, name)                                                                            \
    template <> struct KernelOf<V> {                                                                            \
        static_assert(names_kernel("transpose_" #name, kKernels, V::meta), #V "'s entry names another kernel"); \
        template <unsigned... A> static auto fn() { return &transpose_##name<A...>; }                           \
    }

WL_TRANSPOSE_KERNEL(Copy, copy);
WL_TRANSPOSE_KERNEL(V1, naive);
WL_TRANSPOSE_KERNEL(V2, coalesced);
WL_TRANSPOSE_KERNEL(V3, padded);
WL_TRANSPOSE_KERNEL(V4, rows_per_thread);
WL_TRANSPOSE_KERNEL(V5, tall_tiles);

#undef WL_TRANSPOSE_KERNEL

// The compiled function of one instance (found by argument-dependent lookup
// from the GPU backends).
template <class V, unsigned... A> auto kernel_pointer(KernelInstance<V, TemplateArgs<Value<A>...>>)
{
    return KernelOf<V>::template fn<A...>();
}

}  // namespace warplab::transpose
