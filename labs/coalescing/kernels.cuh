// The coalescing kernels as nvcc compiles them (nvcc only): each version's
// function template, for the lab's PTX (kernels.cu) and the GPU benchmark.
#pragma once
#include "kernels/coalescing/01_offset.cuh"
#include "kernels/coalescing/02_stride.cuh"
#include "labs/coalescing/versions.h"

namespace warplab::coalescing {

// KernelOf<V>::fn<T>(): the __global__ function of version V.
template <class V> struct KernelOf;

#define WL_COALESCING_KERNEL(V, kernel)                                          \
    static_assert(names_kernel(#kernel, kKernels, V::meta), "kernel name and entry disagree"); \
    template <> struct KernelOf<V> {                                             \
        template <class T> static auto fn() { return &kernel<T>; }               \
    }

WL_COALESCING_KERNEL(V1, copy_offset);
WL_COALESCING_KERNEL(V2, copy_stride);

#undef WL_COALESCING_KERNEL

// The compiled function of one instance (found by argument-dependent lookup
// from the GPU backends).
template <class V, class T> auto kernel_pointer(KernelInstance<V, TemplateArgs<T>>)
{
    return KernelOf<V>::template fn<T>();
}

}  // namespace warplab::coalescing
