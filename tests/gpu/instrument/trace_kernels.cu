// Small plain-CUDA kernels for the GPU-trace tests: between them they use
// every kind of instruction the instrumenter traces (global, shared and
// generic loads and stores of 1 to 16 bytes, atomics with and without a
// used result, bar.sync, __syncwarp, shuffles, ballots, a .func call,
// dynamic shared memory, and __constant__ loads). Lines marked "site:" are looked up by the tests.

// The textbook tree: one load, then log2(BLOCK) rounds of load, load, store, barrier.
template <unsigned BLOCK>
__global__ void tree_sum(const float* __restrict__ in, float* out, unsigned n)
{
    __shared__ float sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

// float4 loads, a shuffle tree, a ballot, atomics whose result is used and not.
__global__ void warp_sums(const float* __restrict__ in, float* out, unsigned* counters, unsigned n4)
{
    __shared__ float partial[8];
    __shared__ unsigned ballots[8];
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n4) {
        const float4 q = reinterpret_cast<const float4*>(in)[i];  // site: float4 load
        v = (q.x + q.y) + (q.z + q.w);
    }
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);  // site: shuffle
    const unsigned odd = __ballot_sync(0xffffffffu, i & 1u);  // site: ballot
    __syncwarp();
    if (threadIdx.x % 32 == 0) {
        partial[threadIdx.x / 32] = v;
        ballots[threadIdx.x / 32] = odd;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) t += partial[w];
        out[blockIdx.x] = t;
        counters[1 + blockIdx.x] = atomicAdd(&counters[0], 1u);  // site: atomic used
    }
    if (threadIdx.x < blockDim.x / 32) atomicMax(&counters[64], ballots[threadIdx.x]);  // site: atomic max
    if (threadIdx.x == 1) atomicAdd(&out[gridDim.x], v);  // site: atomic unused
}

// A pointer that may be shared or global, in a function that is not inlined:
// generic loads and stores inside a .func.
__device__ __noinline__ void swap_bytes(unsigned char* a, unsigned char* b)
{
    const unsigned char t = *a;  // site: generic load
    *a = *b;
    *b = t;
}

// Bytes, shorts and doubles in shared memory, and dynamic shared memory.
extern __shared__ double dyn[];
__global__ void narrow_and_wide(unsigned char* bytes, short* shorts, double* doubles)
{
    __shared__ unsigned char sbytes[64];
    __shared__ short sshorts[64];
    const unsigned t = threadIdx.x;
    sbytes[t] = bytes[t];
    sshorts[t] = shorts[t];
    dyn[t] = doubles[t];
    __syncthreads();
    if (t % 2) swap_bytes(&sbytes[t], &bytes[(t + 1) % blockDim.x]);
    else swap_bytes(&bytes[(t + 1) % blockDim.x], &sbytes[t]);
    __syncthreads();
    shorts[t] = sshorts[blockDim.x - 1 - t] + sbytes[t];
    doubles[t] = dyn[(t + 3) % blockDim.x] * 2.0;
}

// Lookups through __constant__ tables, as a filter's weights are read: the
// constant cache serves one address to the warp at a time, so a warp-uniform
// index costs one request and lanes reading different entries cost one each.
__constant__ float weights[16] = {0.5f, -1.0f, 2.0f, 0.25f, 3.0f, -0.5f, 1.5f, 4.0f,
                                  -2.0f, 0.75f, 1.0f, -3.0f, 2.5f, 0.125f, -1.5f, 6.0f};
__constant__ int biases[4] = {10, -20, 30, -40};
__global__ void constant_lookups(const unsigned* keys, float* out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned lane = threadIdx.x % warpSize;
    float v = weights[blockIdx.x % 16];  // site: uniform lookup
    v += weights[15];                    // site: fixed lookup
    v += 2.0f * weights[lane % 4];       // site: lane % 4 lookup
    v += weights[keys[i] % 16];          // site: keyed lookup
    out[i] = v + static_cast<float>(biases[lane / 8]);  // site: lane / 8 lookup
}

template __global__ void tree_sum<256>(const float*, float*, unsigned);
template __global__ void tree_sum<64>(const float*, float*, unsigned);
