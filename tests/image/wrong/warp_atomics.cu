// Right, written differently: each warp adds its lanes' luminances with
// shuffles (warpSize, cooperative style), and the warps' sums meet in one
// shared float by atomicAdd; thread 0 writes it after a barrier.
template <unsigned BX, unsigned BY>
__global__ void image_sequential(const uchar4* image, unsigned width, unsigned height, float* partials)
{
    __shared__ float group_sum;
    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    if (tid == 0) group_sum = 0.0f;
    __syncthreads();
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    float v = 0.0f;
    if (x < width && y < height) {
        const uchar4 p = image[y * width + x];
        v = (0.2125f * p.x + 0.7154f * p.y + 0.0721f * p.z) * (1.0f / 255.0f);
    }
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % warpSize == 0) atomicAdd(&group_sum, v);
    __syncthreads();
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = group_sum;
}
