// A student's reduction handed in for sequential addressing (the lab's v3):
// it halves the working threads as v3 does, but keeps interleaved
// addressing's strided index, so thread t adds partial[2st + s] into
// partial[2st]: neighbouring threads are 2s words apart, and in the first
// halving two of them share each bank. Written the textbook way: plain ints,
// an unsized extern __shared__ array the host sizes, a bounds check on n.
__global__ void strided_sum(const int* in, int* out, unsigned int n)
{
    extern __shared__ int partial[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    partial[t] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * t;
        if (index < blockDim.x) partial[index] += partial[index + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}
