// The method kernels as nvcc compiles them (nvcc only): each version's
// function template, for the lab's PTX (kernels.cu) and the GPU benchmark.
#pragma once
#include "kernels/method/01_compute_full.cuh"
#include "kernels/method/02_compute_memory_only.cuh"
#include "kernels/method/03_compute_compute_only.cuh"
#include "kernels/method/04_compute_guarded.cuh"
#include "kernels/method/05_saxpy_full.cuh"
#include "kernels/method/06_saxpy_memory_only.cuh"
#include "kernels/method/07_saxpy_compute_only.cuh"
#include "kernels/method/08_divide_modulo.cuh"
#include "kernels/method/09_mask_shift.cuh"
#include "kernels/method/10_sin_exp.cuh"
#include "kernels/method/11_sin_exp_intrinsics.cuh"
#include "kernels/method/12_double_literal.cuh"
#include "kernels/method/13_float_literal.cuh"
#include "kernels/method/14_unfused.cuh"
#include "kernels/method/15_fused.cuh"
#include "kernels/method/16_fat_kernel.cuh"
#include "kernels/method/17_fission.cuh"
#include "kernels/method/18_atomic_sum.cuh"
#include "kernels/method/19_constant_uniform.cuh"
#include "kernels/method/20_constant_divergent.cuh"
#include "kernels/method/21_shift_load.cuh"
#include "kernels/method/22_shift_ldg.cuh"
#include "kernels/method/23_shift_texture.cuh"
#include "labs/method/versions.h"

namespace warplab::method {

// KernelOf<V>::fn<T>(): the __global__ function of version V.
template <class V> struct KernelOf;

#define WL_METHOD_KERNEL(V, kernel)                                                             \
    static_assert(names_kernel(#kernel, kKernels, V::meta), "kernel name and entry disagree"); \
    template <> struct KernelOf<V> {                                                            \
        template <class T> static auto fn() { return &kernel<T>; }                              \
    }

WL_METHOD_KERNEL(V1, method_compute_full);
WL_METHOD_KERNEL(V2, method_compute_memory_only);
WL_METHOD_KERNEL(V3, method_compute_compute_only);
WL_METHOD_KERNEL(V4, method_compute_guarded);
WL_METHOD_KERNEL(V5, method_saxpy_full);
WL_METHOD_KERNEL(V6, method_saxpy_memory_only);
WL_METHOD_KERNEL(V7, method_saxpy_compute_only);
WL_METHOD_KERNEL(V8, method_divide_modulo);
WL_METHOD_KERNEL(V9, method_mask_shift);
WL_METHOD_KERNEL(V10, method_sin_exp);
WL_METHOD_KERNEL(V11, method_sin_exp_intrinsics);
WL_METHOD_KERNEL(V12, method_double_literal);
WL_METHOD_KERNEL(V13, method_float_literal);
WL_METHOD_KERNEL(V14, method_unfused);
WL_METHOD_KERNEL(V14::Second, method_unfused_square);
WL_METHOD_KERNEL(V15, method_fused);
WL_METHOD_KERNEL(V16, method_fat_kernel);
WL_METHOD_KERNEL(V17, method_fission);
WL_METHOD_KERNEL(V17::Second, method_fission_second);
WL_METHOD_KERNEL(V18, method_atomic_sum);
WL_METHOD_KERNEL(V19, method_constant_uniform);
WL_METHOD_KERNEL(V20, method_constant_divergent);
WL_METHOD_KERNEL(V21, method_shift_load);
WL_METHOD_KERNEL(V22, method_shift_ldg);
WL_METHOD_KERNEL(V23, method_shift_texture);

#undef WL_METHOD_KERNEL

// The compiled function of one instance (found by argument-dependent lookup
// from the GPU backends).
template <class V, class T> auto kernel_pointer(KernelInstance<V, TemplateArgs<T>>)
{
    return KernelOf<V>::template fn<T>();
}

}  // namespace warplab::method
