// The reduction kernels as nvcc compiles them (nvcc only): each version's
// function template, for the lab's PTX (kernels.cu) and the GPU benchmark.
#pragma once
#include "kernels/reduction/01_interleaved_divergent.cuh"
#include "kernels/reduction/02_interleaved_strided.cuh"
#include "kernels/reduction/03_sequential_addressing.cuh"
#include "kernels/reduction/04_first_add_during_load.cuh"
#include "kernels/reduction/05_unroll_last_warp.cuh"
#include "kernels/reduction/05_unroll_last_warp_racy.cuh"
#include "kernels/reduction/06_complete_unroll.cuh"
#include "kernels/reduction/07_grid_stride.cuh"
#include "kernels/reduction/08_warp_shuffle.cuh"
#include "kernels/reduction/09_vector_single_pass.cuh"
#include "kernels/reduction/10_bulk_copy.cuh"
#include "labs/reduction/versions.h"

namespace warplab::reduction {

// KernelOf<V>::fn<B, T>(): the __global__ function of version V, reduce_<name>
// (the name checked against the version's entry).
template <class V> struct KernelOf;

#define WL_REDUCTION_KERNEL(V, name)                                                    \
    template <> struct KernelOf<V> {                                                     \
        static_assert(names_kernel("reduce_" #name, kKernels, V::meta), #V "'s entry names another kernel"); \
        template <unsigned B, class T> static auto fn() { return &reduce_##name<B, T>; } \
    }

WL_REDUCTION_KERNEL(V1, interleaved_divergent);
WL_REDUCTION_KERNEL(V2, interleaved_strided);
WL_REDUCTION_KERNEL(V3, sequential_addressing);
WL_REDUCTION_KERNEL(V4, first_add_during_load);
WL_REDUCTION_KERNEL(V5, unroll_last_warp);
WL_REDUCTION_KERNEL(V5Racy, unroll_last_warp_racy);
WL_REDUCTION_KERNEL(V6, complete_unroll);
WL_REDUCTION_KERNEL(V7, grid_stride);
WL_REDUCTION_KERNEL(V8, warp_shuffle);
WL_REDUCTION_KERNEL(V9, vector_single_pass);
WL_REDUCTION_KERNEL(V10, bulk_copy);
static_assert(V10::piece_bytes == kPieceBytes && V10::meta.dynamic_shared_bytes % kPieceBytes == 0 &&
                  V10::meta.dynamic_shared_bytes / kPieceBytes <= kMaxPieces,
              "the registry's ring is made of the kernel's pieces");

#undef WL_REDUCTION_KERNEL

// The compiled function of one instance (found by argument-dependent lookup
// from the GPU backends).
template <class V, unsigned B, class T> auto kernel_pointer(KernelInstance<V, TemplateArgs<Value<B>, T>>)
{
    return KernelOf<V>::template fn<B, T>();
}

}  // namespace warplab::reduction
