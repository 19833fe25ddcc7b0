// Read-only loads through __ldg.
//
// Idea: __ldg loads through the read-only data cache; the value is the same
//   as a plain load.
// Changed: nothing.
// Expected effect: out[i] = in[i] + in[n - 1 - i].
// Preconditions: in and out have n elements.
__global__ void mirror_sum_ldg(const int* in, int* out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(&in[i]) + __ldg(in + (n - 1 - i));
}
