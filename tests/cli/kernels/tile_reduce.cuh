// A block's reduction over a shared tile, kept apart from the kernels that use
// it, as samples keep their helpers in a header.
template <unsigned BLOCK, class T>
__device__ T block_sum(T mine)
{
    __shared__ T partial[BLOCK];
    const unsigned t = threadIdx.x;
    partial[t] = mine;
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
        if (t < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    return partial[0];
}
