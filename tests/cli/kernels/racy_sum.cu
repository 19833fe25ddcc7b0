// The same tree without the barrier inside the loop: a thread may read
// partial[t + half] before its owner has added into it. The emulator reports
// the data race at the line of the addition.
template <unsigned BLOCK, class T>
__global__ void racy_sum(const T* __restrict__ in, T* out, unsigned n)
{
    __shared__ T partial[BLOCK];
    const unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    partial[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
        if (t < half) partial[t] += partial[t + half];
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
