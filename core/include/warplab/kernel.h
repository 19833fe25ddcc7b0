// The one header a kernel file includes. It picks one of three builds:
//
//   nvcc                         plain.h    timing build: wl::in<T> is `const T*`,
//                                           WL_SHARED is `__shared__ T name[N]`.
//                                           Nothing is recorded; the code is the raw kernel.
//   nvcc -DWARPLAB_TRACE         traced.h   GPU trace build: every access through the
//                                + gpu_trace.h wrappers appends a LaneRecord to a device buffer.
//   g++  -DWARPLAB_EMULATOR      traced.h   CPU SIMT emulator: every access is checked
//                                + emu/cuda_api.h (bounds, races, uninitialised reads) and recorded.
//
// Kernels therefore write ordinary CUDA plus two visible wrappers:
//   wl::in<T> / wl::out<T>        global-memory parameters (read-only / read-write)
//   WL_SHARED(T, name, N)         a shared array;  WL_SHARED_2D(T, name, R, C) a 2D tile
// and one spelling: WL_UNROLL is `#pragma unroll` under nvcc and nothing under
// g++, which does not know that pragma (and would warn at every loop).
#pragma once

#if defined(WARPLAB_EMULATOR)
#include "warplab/emu/cuda_api.h"
#include "warplab/traced.h"
#elif defined(__CUDACC__) && defined(WARPLAB_TRACE)
#include "warplab/gpu_trace.h"
#elif defined(__CUDACC__)
#include "warplab/plain.h"
#else
#error "warplab kernels compile with nvcc, or with the host compiler and -DWARPLAB_EMULATOR"
#endif

#include "warplab/vec.h"

#if defined(__CUDACC__)
#define WL_UNROLL _Pragma("unroll")
#else
#define WL_UNROLL
#endif
