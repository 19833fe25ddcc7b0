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
#include "labs/reduction/versions.h"

namespace warplab::reduction {

// KernelOf<V>::fn<B, T>(): the __global__ function of version V.
template <class V> struct KernelOf;

#define WL_REDUCTION_KERNEL(V, kernel)                              \
    template <> struct KernelOf<V> {                                \
        template <unsigned B, class T> static auto fn() { return &kernel<B, T>; } \
    }

WL_REDUCTION_KERNEL(V1, reduce_interleaved_divergent);
WL_REDUCTION_KERNEL(V2, reduce_interleaved_strided);
WL_REDUCTION_KERNEL(V3, reduce_sequential_addressing);
WL_REDUCTION_KERNEL(V4, reduce_first_add_during_load);
WL_REDUCTION_KERNEL(V5, reduce_unroll_last_warp);
WL_REDUCTION_KERNEL(V5Racy, reduce_unroll_last_warp_racy);
WL_REDUCTION_KERNEL(V6, reduce_complete_unroll);
WL_REDUCTION_KERNEL(V7, reduce_grid_stride);
WL_REDUCTION_KERNEL(V8, reduce_warp_shuffle);
WL_REDUCTION_KERNEL(V9, reduce_vector_single_pass);

#undef WL_REDUCTION_KERNEL

// The compiled function of one instance (found by argument-dependent lookup
// from the GPU backends).
template <class V, unsigned B, class T> auto kernel_pointer(KernelInstance<V, TemplateArgs<Value<B>, T>>)
{
    return KernelOf<V>::template fn<B, T>();
}

}  // namespace warplab::reduction
