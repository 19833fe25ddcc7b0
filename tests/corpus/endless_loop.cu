// Loops that end and one that does not.
//
// Idea: a loop of `iterations` rounds ends; the same loop whose step never
//   changes the counter (s *= 1) does not, and the instruction budget must stop it.
//   A spin wait: warp 1 waits on a flag that warp 0 raises (libcu++'s
//   cuda::atomic_ref, release and acquire).
// Expected effect: counted_loop writes the count; endless_loop stops with the
//   budget's fault; spin_wait reads 42.
#include <cuda/atomic>

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
    cuda::atomic_ref<int, cuda::thread_scope_block> ready(flag), value(data);
    if (threadIdx.x == 0) ready.store(0, cuda::memory_order_relaxed);
    __syncthreads();
    if (threadIdx.x == 0) {
        value.store(42, cuda::memory_order_relaxed);
        ready.store(1, cuda::memory_order_release);
    }
    if (threadIdx.x == 32) {
        while (ready.load(cuda::memory_order_acquire) == 0) {
        }
        out[0] = value.load(cuda::memory_order_relaxed);
    }
}
