// Two kernels that compute the same out[i] = i*i + i % 32 for i < n: one
// through a device function nvcc keeps as a call (__noinline__: a `.func` and
// a `call` in the PTX, which the emulator runs on a fiber a lane), one with
// the same arithmetic inline (no call, no fiber). The browser build has no
// fibers: it must refuse the first in one line and run the second.
__device__ __noinline__ int squared_plus_lane(int i) { return i * i + i % 32; }

extern "C" __global__ void with_call(int* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = squared_plus_lane(i);
}

extern "C" __global__ void inline_only(int* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * i + i % 32;
}
