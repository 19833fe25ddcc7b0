// The matmul kernels as nvcc compiles them (nvcc only): each version's
// function template, for the lab's PTX (kernels.cu) and the GPU benchmark.
#pragma once
#include "kernels/matmul/01_naive.cuh"
#include "kernels/matmul/02_coalesced.cuh"
#include "kernels/matmul/03_shared_tiles.cuh"
#include "kernels/matmul/04_1d_blocktiling.cuh"
#include "kernels/matmul/05_2d_blocktiling.cuh"
#include "kernels/matmul/06_vectorized.cuh"
#include "kernels/matmul/07_conflict_free.cuh"
#include "kernels/matmul/08_warptiled.cuh"
#include "kernels/matmul/09_pipelined.cuh"
#include "kernels/matmul/10_tensor_cores.cuh"
#include "kernels/matmul/11_wgmma.cuh"
#include "kernels/matmul/12_tma_pipeline.cuh"
#include "kernels/matmul/13_stream_k.cuh"
#include "kernels/matmul/14_bf16_wgmma.cuh"
#include "kernels/matmul/15_bf16_multicast.cuh"
#include "labs/matmul/versions.h"

namespace warplab::matmul {

// KernelOf<V>::fn<tile sizes...>(): the __global__ function of version V,
// matmul_<name> (the name checked against the version's entry).
template <class V> struct KernelOf;

#define WL_MATMUL_KERNEL(V, name)                                                        \
    template <> struct KernelOf<V> {                                                      \
        static_assert(names_kernel("matmul_" #name, kKernels, V::meta), #V "'s entry names another kernel"); \
        template <unsigned... A> static auto fn() { return &matmul_##name<A...>; }        \
    }

WL_MATMUL_KERNEL(V1, naive);
WL_MATMUL_KERNEL(V2, coalesced);
WL_MATMUL_KERNEL(V3, shared_tiles);
WL_MATMUL_KERNEL(V4, 1d_blocktiling);
WL_MATMUL_KERNEL(V5, 2d_blocktiling);
WL_MATMUL_KERNEL(V6, vectorized);
WL_MATMUL_KERNEL(V7, conflict_free);
WL_MATMUL_KERNEL(V8, warptiled);
WL_MATMUL_KERNEL(V9, pipelined);
WL_MATMUL_KERNEL(V10, tensor_cores);
WL_MATMUL_KERNEL(V11, wgmma);
WL_MATMUL_KERNEL(V12, tma_pipeline);
WL_MATMUL_KERNEL(V13, stream_k);
WL_MATMUL_KERNEL(V14, bf16_wgmma);
WL_MATMUL_KERNEL(V15, bf16_multicast);

#undef WL_MATMUL_KERNEL

// The compiled function of one instance (found by argument-dependent lookup
// from the GPU backends).
template <class V, unsigned... A> auto kernel_pointer(KernelInstance<V, TemplateArgs<Value<A>...>>)
{
    return KernelOf<V>::template fn<A...>();
}

}  // namespace warplab::matmul
