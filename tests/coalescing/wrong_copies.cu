// Copies that look right and are not, run in place of the lab's versions
// (RunRequest::file): each must fail the lab's check.
template <class T>
__global__ void copy_ignoring_setting(const T* in, T* out, unsigned n, unsigned /*setting*/)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];  // the offset or stride is never applied
}

template <class T>
__global__ void copy_first_half(const T* in, T* out, unsigned n, unsigned offset)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) out[i] = in[i + offset];  // does less than asked: the upper half stays unwritten
}

template <class T>
__global__ void copy_shifted_not_strided(const T* in, T* out, unsigned n, unsigned stride)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + stride];  // v1's index where v2's belongs
}
