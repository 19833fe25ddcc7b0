// Wrong: every group reduces the first group's tile (blockIdx is never read
// for the pixels), so every partial is tile (0, 0)'s sum.
template <unsigned BX, unsigned BY>
__global__ void image_sequential(const uchar4* image, unsigned width, unsigned height, float* partials)
{
    __shared__ float sdata[BX * BY];
    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = threadIdx.x, y = threadIdx.y;
    float v = 0.0f;
    if (x < width && y < height) {
        const uchar4 p = image[y * width + x];
        v = (0.2125f * p.x + 0.7154f * p.y + 0.0721f * p.z) * (1.0f / 255.0f);
    }
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = BX * BY / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = sdata[0];
}
