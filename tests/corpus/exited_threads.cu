// Threads that return early, then barriers the rest of the block reaches.
//
// Idea: the usual guard `if (i >= n) return;` before a __syncthreads() or a
//   __syncwarp(). Since Volta, bar.sync waits only for the threads that have
//   not exited (PTX ISA, barrier), and the Programming Guide asks a
//   corresponding __syncwarp() only of the non-exited threads in its mask.
// Expected effect: both run to the right result; the __syncthreads() one with
//   a warning at its barrier (the Guide asks that every thread of a block
//   reach a barrier, or none), the __syncwarp() one with none.
// Preconditions: one block; n below blockDim.x, so that the last threads exit.
__global__ void scale_by_first(const int* in, int* out, int n)
{
    __shared__ int first;
    const int i = threadIdx.x;
    if (i >= n) return;
    if (i == 0) first = in[0];
    __syncthreads();  // marker: barrier after return
    out[i] = in[i] * first;
}

__global__ void swap_pairs(const int* in, int* out, int n)
{
    __shared__ int s[128];
    const int i = threadIdx.x;
    if (i >= n) return;
    s[i] = in[i];
    __syncwarp();
    out[i] = (i ^ 1) < n ? s[i ^ 1] : s[i];
}
