// Loops that end and one that does not.
//
// Idea: a loop of `iterations` rounds ends; the same loop whose step never
//   changes the counter (s *= 1) does not, and the step budget must stop it.
//   A spin wait: warp 1 waits on a volatile flag that warp 0 raises.
// Expected effect: counted_loop writes the count; endless_loop stops with the
//   budget's fault; spin_wait reads 42.
__global__ void counted_loop(unsigned iterations, unsigned* out)
{
    unsigned s = 0;
    for (unsigned k = 0; k < iterations; ++k) s += k ^ threadIdx.x;
    out[threadIdx.x] = s;
}

__global__ void endless_loop(int* out)
{
    int sum = 0;
    for (int s = 1; s > 0; s *= 1) sum += s;  // marker: endless
    out[threadIdx.x] = sum;
}

__global__ void spin_wait(int* out)
{
    __shared__ int data;
    __shared__ int flag;
    volatile int* ready = &flag;
    if (threadIdx.x == 0) *ready = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        *static_cast<volatile int*>(&data) = 42;  // strong stores and loads: no race among them
        __threadfence_block();
        *ready = 1;
    }
    if (threadIdx.x == 32) {
        while (*ready == 0) {
        }
        __threadfence_block();
        out[0] = *static_cast<volatile int*>(&data);
    }
}
