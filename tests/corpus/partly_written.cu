// Shared memory read in wider pieces than it was written.
//
// Idea: nvcc reads a struct copied whole, or a float4, with one vector load
//   (ld.shared.v2/.v4) that also covers bytes nobody wrote: the padding after
//   the struct's int, the float4's unused w. The kernel never uses them.
//   And a counter set up with atomicExch, whose old value is dropped.
// Expected effect: all three run with no fault; a float4 read of which no
//   component was written is still a read of uninitialised memory.
// Preconditions: blockDim.x == 64.
struct KeyValue {
    int key;
    double value;  // 4 bytes of padding before it
};

// The pair with the largest value, by a tree over whole structs.
__global__ void largest_pair(const int* keys, const double* values, int* out)
{
    __shared__ KeyValue s[64];
    s[threadIdx.x].key = keys[threadIdx.x];
    s[threadIdx.x].value = values[threadIdx.x];
    __syncthreads();
    for (unsigned half = 32; half > 0; half >>= 1) {
        if (threadIdx.x < half) {
            const KeyValue a = s[threadIdx.x], b = s[threadIdx.x + half];
            s[threadIdx.x] = b.value > a.value ? b : a;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = s[0].key;
}

// Points with w unused: x + y + z of each, summed by thread 0.
__global__ void point_sum(const float* xyz, float* out)
{
    __shared__ float4 p[64];
    p[threadIdx.x].x = xyz[3 * threadIdx.x];
    p[threadIdx.x].y = xyz[3 * threadIdx.x + 1];
    p[threadIdx.x].z = xyz[3 * threadIdx.x + 2];
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0;
        for (int k = 0; k < 64; ++k) {
            const float4 q = p[k];
            sum += q.x + q.y + q.z;
        }
        out[0] = sum;
    }
}

// A counter set up with atomicExch (its old value dropped), then counted up by every thread.
__global__ void exchanged_count(int* out)
{
    __shared__ int count;
    if (threadIdx.x == 0) atomicExch(&count, 0);
    __syncthreads();
    atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = count;
}

// Only thread 0 writes its point; thread 1 reads point `which` (1: nobody wrote it).
// The index comes from the host: with a constant one, nvcc drops the read of memory never written.
__global__ void unwritten_point(const float* xyzw, unsigned which, float* out)
{
    __shared__ float4 p[64];
    if (threadIdx.x == 0) p[0] = make_float4(xyzw[0], xyzw[1], xyzw[2], xyzw[3]);
    __syncthreads();
    if (threadIdx.x == 1) {
        const float4 q = p[which];  // marker: unwritten point
        out[0] = q.x + q.y + q.z + q.w;
    }
}
