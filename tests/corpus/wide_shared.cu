// Shared-memory accesses of eight and sixteen bytes per thread.
//
// Idea: copy through shared memory as double, float2 and float4, the last
//   loading its global input through reinterpret_cast of the float pointer.
// Changed: nothing; three kernels, one per width.
// Expected effect: the trace records each access with its real width; shared
//   memory serves wide accesses a half warp (eight bytes) or a quarter warp
//   (sixteen bytes) at a time, so consecutive elements are conflict-free at
//   that rate.
// Preconditions: one block of at most kMaxBlock threads; n == blockDim.x
//   elements (float4: 4 n floats).
#include "layout.h"

constexpr unsigned kMaxBlock = corpus::kWideMaxBlock;

__global__ void copy_double(const double* __restrict__ in, double* out)
{
    __shared__ double cells[kMaxBlock];
    cells[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = cells[blockDim.x - 1 - threadIdx.x];
}

__global__ void copy_float2(const float2* __restrict__ in, float2* out)
{
    __shared__ float2 cells[kMaxBlock];
    cells[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = cells[blockDim.x - 1 - threadIdx.x];
}

__global__ void copy_float4(const float* __restrict__ in, float* out)
{
    __shared__ float4 cells[kMaxBlock];
    cells[threadIdx.x] = reinterpret_cast<const float4*>(in)[threadIdx.x];
    __syncthreads();
    reinterpret_cast<float4*>(out)[threadIdx.x] = cells[blockDim.x - 1 - threadIdx.x];
}
