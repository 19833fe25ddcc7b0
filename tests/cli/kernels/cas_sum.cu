// A user's reduction that adds into one shared word with the Programming
// Guide's atomicCAS loop. The loop's first plain read of the word may see a
// value other threads' atomics are about to replace; the compare catches that
// and the loop retries, so the emulator runs it without a warning.
// It has the reduction lab's signature for int elements.
__global__ void cas_sum(const int* __restrict__ in, int* out, unsigned n)
{
    __shared__ int total;
    const unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t == 0) total = 0;
    __syncthreads();
    const int v = i < n ? in[i] : 0;
    int seen = total, expected;  // the plain read the loop's compare checks
    do {
        expected = seen;
        seen = atomicCAS(&total, expected, expected + v);
    } while (seen != expected);
    __syncthreads();
    if (t == 0) out[blockIdx.x] = total;
}
