// Maximum of floats with an atomic built on atomicCAS.
//
// Idea: CUDA has no atomicMax for float; compare-and-swap the float's bit
//   pattern (as an int) until either the stored value is already at least as
//   large or our swap succeeds.
// Changed: nothing; the classic loop with __float_as_int / __int_as_float.
// Expected effect: the exact maximum, negative numbers included (the loop
//   compares floats, never the bit patterns).
// Preconditions: *result starts at -infinity or at any value to fold in;
//   no NaN in the input.
__device__ float atomic_max_float(float* address, float value)
{
    int* cell = reinterpret_cast<int*>(address);
    int old = *cell;
    while (__int_as_float(old) < value) {
        int assumed = old;
        old = atomicCAS(cell, assumed, __float_as_int(value));
        if (old == assumed) break;
    }
    return __int_as_float(old);
}

__global__ void max_of_floats(const float* __restrict__ in, unsigned n, float* result)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomic_max_float(result, in[i]);
}
