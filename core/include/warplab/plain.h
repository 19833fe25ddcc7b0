// Timing build: the wrappers are the raw CUDA types themselves, so the kernel
// compiles to exactly the machine code of a kernel written with raw arrays.
// (tests/sass checks this on the SASS; the static_asserts below check the types.)
#pragma once
#include <type_traits>

namespace wl {
// Inputs never alias the outputs in these labs: __restrict__ lets the
// compiler use the read-only (non-coherent) load path, as a hand-written kernel would.
template <class T> using in = const T* __restrict__;
template <class T> using out = T*;

// wl::as<int4>(g_in): the same pointer seen as wider elements, for 128-bit loads.
template <class V, class T> __device__ __forceinline__ const V* as(const T* p) { return reinterpret_cast<const V*>(p); }
// ... and of a writable array (a wl::out<T> parameter, a WL_SHARED array): stores through it are 128-bit too.
template <class V, class T> __device__ __forceinline__ V* as(T* p) { return reinterpret_cast<V*>(p); }

// Harris's unrolled warp reads shared memory through a volatile pointer.
template <class T> __device__ __forceinline__ volatile T* as_volatile(T* p) { return p; }
}  // namespace wl

static_assert(std::is_same_v<wl::in<int>, const int* __restrict__>, "plain build must pass raw pointers");
static_assert(std::is_same_v<wl::out<float>, float*>, "plain build must pass raw pointers");

#define WL_SHARED(T, name, N) __shared__ T name[N]
#define WL_SHARED_2D(T, name, R, C) __shared__ T name[R][C]
