// Reverse each block's segment through dynamic shared memory.
//
// Idea: `extern __shared__` memory sized at launch: each thread stores its
//   element, and after a barrier reads its mirror's.
// Changed: nothing; the smallest use of dynamic shared memory.
// Expected effect: out holds each block's segment reversed. Launched with
//   fewer dynamic bytes than blockDim.x floats, the last threads store past
//   the end of the shared array: an out-of-bounds fault.
// Preconditions: n is a multiple of blockDim.x; the launch gives
//   blockDim.x * sizeof(float) dynamic shared bytes.
__global__ void reverse_segments(const float* __restrict__ in, float* out)
{
    extern __shared__ float segment[];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * blockDim.x;
    segment[t] = in[base + t];  // FAULT(dynamic_past_end)
    __syncthreads();
    out[base + t] = segment[blockDim.x - 1 - t];
}
