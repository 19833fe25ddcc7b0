// A copy staged through dynamic shared memory, the block size a template
// parameter: launched as coalescing v1, whose kernels take only <T>, BLOCK
// gets the launch's threads per block.
template <typename T, unsigned BLOCK>
__global__ void staged_copy(const T* in, T* out, unsigned n, unsigned offset)
{
    extern __shared__ unsigned char raw[];
    T* stage = reinterpret_cast<T*>(raw);
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) stage[threadIdx.x] = in[i + offset];
    __syncthreads();
    if (i < n) out[i] = stage[threadIdx.x];
}
