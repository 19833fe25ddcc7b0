// Only a kernel template, never instantiated, whose bool parameter has no
// default: nothing in the file says which value to run it with.
template <class T, bool kTwoLoads>
__global__ void reduce_choice(const T* in, T* out, unsigned n)
{
    extern __shared__ unsigned char raw[];
    T* sdata = reinterpret_cast<T*>(raw);
    const unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = kTwoLoads ? T(0) : sdata[0];
}
