// A reduction that stages 32 elements a thread in shared memory before it
// adds them: a block of 256 threads holds 256 x 32 ints, 32768 bytes, which is
// what bounds how many blocks an SM holds (warplab occupancy --file).
template <unsigned BLOCK, class T>
__global__ void staged_sum(const T* __restrict__ in, T* out, unsigned n)
{
    constexpr unsigned kPerThread = 32;
    __shared__ T stage[BLOCK * kPerThread];
    const unsigned t = threadIdx.x, first = blockIdx.x * BLOCK * kPerThread;
    for (unsigned k = 0; k < kPerThread; ++k) {  // coalesced: a warp loads 32 neighbours each round
        const unsigned i = first + k * BLOCK + t;
        stage[k * BLOCK + t] = i < n ? in[i] : T(0);
    }
    __syncthreads();
    T sum = T(0);
    for (unsigned k = 0; k < kPerThread; ++k) sum += stage[t * kPerThread + k];
    __syncthreads();
    stage[t] = sum;
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
        if (t < half) stage[t] += stage[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = stage[0];
}
