// Reductions written the way NVIDIA's CUDA samples write them: templates on
// the element type (and the block size), dynamic shared memory reached through
// a typed helper, and explicit instantiations for the types the host code uses.

// The samples' idiom for typed dynamic shared memory: one unsized extern
// array, seen as T.
template <class T> struct DynamicShared {
    __device__ operator T*()
    {
        extern __shared__ int dynamic_smem[];
        return reinterpret_cast<T*>(dynamic_smem);
    }
};

// Sequential addressing on <class T>; the file instantiates it for int only.
template <class T>
__global__ void reduce2(T* g_idata, T* g_odata, unsigned int n)
{
    T* sdata = DynamicShared<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : T(0);
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = sdata[tid] + sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template __global__ void reduce2<int>(int*, int*, unsigned int);

// The block size as a template parameter after the type, the samples' order,
// and a bool the host code picks from n; instantiated for <int, 256, false> only.
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(T* g_idata, T* g_odata, unsigned int n)
{
    __shared__ T sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    sdata[tid] = (nIsPow2 || i < n) ? g_idata[i] : T(0);  // a power-of-two n needs no bounds check
    __syncthreads();
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = sdata[tid] + sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template __global__ void reduce6<int, 256, false>(int*, int*, unsigned int);

// The same with a default for the bool: any type and block size fit.
template <typename T, unsigned BLOCK, bool kUnused = false>
__global__ void reduce_default_bool(const T* in, T* out, unsigned n)
{
    __shared__ T partial[BLOCK];
    const unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    partial[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
        if (t < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = kUnused ? T(0) : partial[0];
}

// Value parameters of other types and in another order: <int BLOCK, typename T>.
template <int BLOCK, typename T>
__global__ void reduce_int_block(const T* in, T* out, unsigned n)
{
    __shared__ T partial[BLOCK];
    const unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    partial[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int half = BLOCK / 2; half > 0; half >>= 1) {
        if (int(t) < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

// A size_t block size, only a power of two of at least 512 accepted.
template <typename T, unsigned long long BLOCK>
__global__ void reduce_big_block(const T* in, T* out, unsigned n)
{
    static_assert(BLOCK >= 512, "reduce_big_block needs a block of at least 512 threads");
    __shared__ T partial[BLOCK];
    const unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    partial[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned long long half = BLOCK / 2; half > 0; half >>= 1) {
        if (t < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
