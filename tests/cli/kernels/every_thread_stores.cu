// A user's reduction that forgot `if (threadIdx.x == 0)` before writing the
// block's result: every thread stores the same total to out[blockIdx.x]. The
// stores race, but they all write the same bits, so the result is right and
// the emulator warns (one site: the store, line 16) instead of stopping.
// It has the reduction lab's signature for int elements.
__global__ void every_thread_stores(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int partial[256];
    const unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < half) partial[t] += partial[t + half];
        __syncthreads();
    }
    out[blockIdx.x] = partial[0];
}
