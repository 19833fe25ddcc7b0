// Barriers that also reduce a predicate over the block.
//
// Idea: __syncthreads_count(p) returns how many threads of the block had p
//   true; __syncthreads_and(p) whether all had; __syncthreads_or(p) whether
//   any had. Each is a full barrier as well.
// Changed: nothing; one kernel that uses all three.
// Expected effect: thread 0 of each block writes the count, the and and the
//   or of its block's predicates (flags[i] != 0) to out[3 b ...].
// Preconditions: flags has gridDim.x * blockDim.x elements.
__global__ void predicate_counts(const int* __restrict__ flags, int* out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = flags[i] != 0;
    int count = __syncthreads_count(p);
    int all = __syncthreads_and(p);
    int any = __syncthreads_or(p);
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = count;
        out[3 * blockIdx.x + 1] = all;
        out[3 * blockIdx.x + 2] = any;
    }
}
