// A user's reduction, written like a textbook: sequential addressing over a
// shared tree. It has the lab's signature, so `warplab trace reduction v3
// --file tree_sum.cu --kernel tree_sum` runs it in place of v3.
template <unsigned BLOCK, class T>
__global__ void tree_sum(const T* __restrict__ in, T* out, unsigned n)
{
    __shared__ T partial[BLOCK];
    const unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    partial[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
        if (t < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
