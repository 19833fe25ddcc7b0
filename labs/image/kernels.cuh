// The image kernels as nvcc compiles them (nvcc only): each version's
// function template and the later pass, for the lab's PTX (kernels.cu) and
// the GPU benchmark.
#pragma once
#include "kernels/image/00_sum_partials.cuh"
#include "kernels/image/01_interleaved.cuh"
#include "kernels/image/02_sequential.cuh"
#include "kernels/image/03_unrolled_tail.cuh"
#include "kernels/image/03_unrolled_tail_wave64.cuh"
#include "kernels/image/04_two_fetches.cuh"
#include "kernels/image/05_four_fetches.cuh"
#include "kernels/image/06_four_fetches_64.cuh"
#include "kernels/image/07_vector_single_pass.cuh"
#include "labs/image/versions.h"

namespace warplab::image {

// KernelOf<V>::fn<BX, BY>(): the __global__ function of version V, image_<name>
// (the name checked against the version's entry).
template <class V> struct KernelOf;

#define WL_IMAGE_KERNEL(V, name)                                                                            \
    template <> struct KernelOf<V> {                                                                        \
        static_assert(names_kernel("image_" #name, kKernels, V::meta), #V "'s entry names another kernel"); \
        template <unsigned BX, unsigned BY> static auto fn() { return &image_##name<BX, BY>; }              \
    }

WL_IMAGE_KERNEL(SumPartials, sum_partials);
WL_IMAGE_KERNEL(V1, interleaved);
WL_IMAGE_KERNEL(V2, sequential);
WL_IMAGE_KERNEL(V3, unrolled_tail);
WL_IMAGE_KERNEL(V3Wave64, unrolled_tail_wave64);
WL_IMAGE_KERNEL(V4, two_fetches);
WL_IMAGE_KERNEL(V5, four_fetches);
WL_IMAGE_KERNEL(V6, four_fetches_64);
WL_IMAGE_KERNEL(V7, vector_single_pass);

#undef WL_IMAGE_KERNEL

static_assert(V7::fetch_x == 4 && V7::fetch_y == kRowsPerThread, "v7's tile is what its kernel loads: one uint4 of pixels, kRowsPerThread rows");

// The compiled function of one instance (found by argument-dependent lookup from the GPU backends).
template <class V, unsigned BX, unsigned BY> auto kernel_pointer(KernelInstance<V, TemplateArgs<Value<BX>, Value<BY>>>)
{
    return KernelOf<V>::template fn<BX, BY>();
}

}  // namespace warplab::image
