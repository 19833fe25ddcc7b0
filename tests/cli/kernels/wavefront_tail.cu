// The barrier-free 64-thread tail of a block reduction, as "Compute Shader
// Optimizations for AMD GPUs: Parallel Reduction" writes it for a 64-wide
// wavefront, and two other forms. Each has the reduction lab's signature, so
// `warplab trace reduction v3 --file wavefront_tail.cu --kernel K` runs it in
// place of v3 (block 256), at --warp-size 32 or 64.
//
// wavefront_tail: after the last barrier, threads 0-63 finish with offsets
//   32, 16, ..., 1 in volatile shared memory and no barrier at all: one
//   wavefront when a warp is 64 lanes, two warps when it is 32.
// barrier_tail: the same rounds, a __syncthreads() between each round's reads
//   and its writes: right at any width, under any schedule.
// syncwarp_tail: the rounds ordered by __syncwarp(), whose PTX mask is 32 bits.

// The block's values folded, with barriers, to 64 partial sums in s[0..63]
// (s[64..BLOCK) keep earlier partials: the tail's upper lanes read them).
template <unsigned BLOCK, class T>
__device__ void fold_to_64(const T* in, volatile T* s, unsigned n)
{
    static_assert(BLOCK >= 128 && (BLOCK & (BLOCK - 1)) == 0, "a power of two of 128 threads or more");
    const unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned half = BLOCK / 2; half >= 64; half /= 2) {
        if (t < half) s[t] += s[t + half];
        __syncthreads();
    }
}

template <unsigned BLOCK, class T>
__global__ void wavefront_tail(const T* __restrict__ in, T* out, unsigned n)
{
    __shared__ T shared[BLOCK];
    volatile T* s = shared;
    const unsigned t = threadIdx.x;
    fold_to_64<BLOCK>(in, s, n);
    if (t < 64) {  // no barrier: right only while these 64 threads run as one wavefront, in lockstep
        s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

template <unsigned BLOCK, class T>
__global__ void barrier_tail(const T* __restrict__ in, T* out, unsigned n)
{
    __shared__ T shared[BLOCK];
    volatile T* s = shared;
    const unsigned t = threadIdx.x;
    fold_to_64<BLOCK>(in, s, n);
    for (unsigned offset = 32; offset > 0; offset /= 2) {
        T v = T(0);
        if (t < offset) v = s[t + offset];
        __syncthreads();
        if (t < offset) s[t] += v;
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

template <unsigned BLOCK, class T>
__global__ void syncwarp_tail(const T* __restrict__ in, T* out, unsigned n)
{
    __shared__ T shared[BLOCK];
    volatile T* s = shared;
    const unsigned t = threadIdx.x;
    fold_to_64<BLOCK>(in, s, n);
    if (t < 64) {
        for (unsigned offset = 32; offset > 0; offset /= 2) {
            const T v = s[t + offset];
            __syncwarp();
            s[t] += v;
            __syncwarp();
        }
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
