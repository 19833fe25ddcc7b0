// Harris's interleaved tree with its stride never doubling (s *= 1 where
// s *= 2 was meant): s stays 1, so the loop never ends.
__global__ void endless_sum(const int* g_in, int* g_out, unsigned n)
{
    extern __shared__ int sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? g_in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 1) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}
