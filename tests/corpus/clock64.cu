// The cycle counter: clock64().
//
// Idea: each thread reads the counter, does some dependent work, and reads it
//   again.
// Changed: nothing.
// Expected effect: the second reading is later than the first for every
//   thread; the work's result is written so that it is not optimised away.
// Preconditions: out has three elements per thread.
__global__ void elapsed_cycles(long long* out, unsigned rounds)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    long long start = clock64();
    unsigned x = i;
    for (unsigned k = 0; k < rounds; ++k) x = x * 1664525u + 1013904223u;
    long long stop = clock64();
    out[3 * i] = start;
    out[3 * i + 1] = stop;
    out[3 * i + 2] = x;
}
