// Reductions written the way Harris's "Optimizing Parallel Reduction in CUDA"
// writes them: plain int kernels, an unsized `extern __shared__ int sdata[]`
// whose size the host code chooses (threads * sizeof(int)), and a bounds
// check on n so that any input size works.

// Interleaved addressing with the divergent modulo test (Harris's kernel 1).
__global__ void reduce_modulo(int* g_idata, int* g_odata, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Sequential addressing (Harris's kernel 3).
__global__ void reduce_halves(int* g_idata, int* g_odata, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// First add during load (Harris's kernel 4): two elements per thread, so it
// is launched as v4, whose grid has half the blocks.
__global__ void reduce_two_loads(int* g_idata, int* g_odata, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    int sum = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n) sum += g_idata[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Does less than asked: the tree stops one step early, so each block's sum
// misses sdata[1]'s half. Its result must be reported wrong.
__global__ void reduce_stops_early(int* g_idata, int* g_odata, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 1; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
