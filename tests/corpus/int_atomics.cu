// Every integer atomic of CUDA, on global and on shared memory.
//
// Idea: all threads fold their input into one cell per operation: add, sub,
//   or, and, xor, min, max, exch, and for unsigned also inc and dec (which
//   wrap at a limit). atomicExch hands back the value it replaced, so the
//   values handed back plus the last one stored are the inputs plus the
//   starting value.
// Changed: nothing; one kernel template per memory space, instantiated for
//   int, unsigned and unsigned long long (which has no sub, inc or dec).
// Expected effect: each cell ends where the operation folded over the
//   inputs, in any order, leaves it.
// Preconditions: cells holds kCells starting values; exchanged has n
//   elements. The shared version runs one block.
#include "layout.h"

using namespace corpus;

template <class T>
__device__ void fold_atomically(T* cells, T v, T* exchanged_slot)
{
    atomicAdd(&cells[kAdd], v);
    atomicOr(&cells[kOr], v);
    atomicAnd(&cells[kAnd], v);
    atomicXor(&cells[kXor], v);
    atomicMin(&cells[kMin], v);
    atomicMax(&cells[kMax], v);
    *exchanged_slot = atomicExch(&cells[kExch], v);
    if constexpr (sizeof(T) == 4) atomicSub(&cells[kSub], v);
    if constexpr (__is_same(T, unsigned)) {
        atomicInc(&cells[kInc], kIncLimit);
        atomicDec(&cells[kDec], kDecLimit);
    }
}

template <class T>
__global__ void atomics_global(const T* __restrict__ in, unsigned n, T* cells, T* exchanged)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        fold_atomically(cells, in[i], &exchanged[i]);
}

template <class T>
__global__ void atomics_shared(const T* __restrict__ in, unsigned n, T* cells, T* exchanged)
{
    __shared__ T local[kCells];
    if (threadIdx.x < kCells) local[threadIdx.x] = cells[threadIdx.x];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) fold_atomically(local, in[i], &exchanged[i]);
    __syncthreads();
    if (threadIdx.x < kCells) cells[threadIdx.x] = local[threadIdx.x];
}

template __global__ void atomics_global<int>(const int*, unsigned, int*, int*);
template __global__ void atomics_global<unsigned>(const unsigned*, unsigned, unsigned*, unsigned*);
template __global__ void atomics_global<unsigned long long>(const unsigned long long*, unsigned, unsigned long long*,
                                                            unsigned long long*);
template __global__ void atomics_shared<int>(const int*, unsigned, int*, int*);
template __global__ void atomics_shared<unsigned>(const unsigned*, unsigned, unsigned*, unsigned*);
template __global__ void atomics_shared<unsigned long long>(const unsigned long long*, unsigned, unsigned long long*,
                                                            unsigned long long*);
