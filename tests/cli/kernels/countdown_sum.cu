// Two first tries at Harris's sequential addressing that nvcc warns about.
//
// countdown_sum counts its stride down in an unsigned: s >= 0 always holds,
// so after s reaches 0 the loop goes on forever (nvcc: "pointless comparison
// of unsigned integer with zero", line 12).
__global__ void countdown_sum(const int* g_in, int* g_out, unsigned n)
{
    extern __shared__ int sdata[];
    const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? g_in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s >= 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}

// checked_sum is right, with a bounds check half of which is always true
// (the same warning, line 25): the sum is correct and the warning shown.
__global__ void checked_sum(const int* g_in, int* g_out, unsigned n)
{
    extern __shared__ int sdata[];
    const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i >= 0 && i < n ? g_in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}
