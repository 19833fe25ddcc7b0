// What CUDA calls a race, and what it does not.
//
// Idea: five small kernels at the Programming Guide's edges. A warp's lanes
//   storing one value to one shared word (llm.c's layernorm style: every lane
//   of the warp writes the mean; with two warps, a warning); storing different values (one lands); the
//   Guide's atomicCAS loop on a shared accumulator, whose first plain read may
//   be stale (the loop's compare catches it); a plain read of an accumulator
//   other threads still add to atomically (it may see any partial sum); and
//   the accumulator updated with a plain +=, a real race.
// Expected effect: the first four run (the second and fourth with a warning);
//   the last stops with a data race.
// Preconditions: blockDim.x as the test says.
__global__ void same_value_store(const float* in, float* out)
{
    __shared__ float mean[1];
    mean[0] = in[0];  // marker: same value
    __syncthreads();
    out[threadIdx.x] = mean[0];
}

__global__ void lane_value_store(int* out)
{
    __shared__ int last[1];
    last[0] = static_cast<int>(threadIdx.x);  // marker: lane value
    __syncthreads();
    if (threadIdx.x == 0) out[0] = last[0];
}

__device__ float add_with_cas(float* address, float v)
{
    int* word = reinterpret_cast<int*>(address);
    int old = *word, assumed;  // marker: stale read
    do {
        assumed = old;
        old = atomicCAS(word, assumed, __float_as_int(v + __int_as_float(assumed)));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void cas_loop_sum(const float* in, float* out)
{
    __shared__ float acc;
    if (threadIdx.x == 0) acc = 0.0f;
    __syncthreads();
    add_with_cas(&acc, in[threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = acc;
}

__global__ void peek_sum(const float* in, float* out, float* seen)
{
    __shared__ float acc;
    if (threadIdx.x == 0) acc = 0.0f;
    __syncthreads();
    atomicAdd(&acc, in[threadIdx.x]);
    seen[threadIdx.x] = acc;  // marker: peek
    __syncthreads();
    if (threadIdx.x == 0) out[0] = acc;
}

__global__ void plain_sum(const float* in, float* out)
{
    __shared__ float acc;
    if (threadIdx.x == 0) acc = 0.0f;
    __syncthreads();
    acc += in[threadIdx.x];  // marker: plain add
    __syncthreads();
    if (threadIdx.x == 0) out[0] = acc;
}
