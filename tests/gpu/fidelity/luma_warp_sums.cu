// A tile's luminance sum as CUDA's samples write a block reduction: each warp
// adds its values with __shfl_down_sync, lane 0 of every warp leaves the
// warp's sum in shared memory, and the first warp adds those. It has the image
// lab's signature, so `warplab trace image v3 --file luma_warp_sums.cu` runs it
// in place of v3 (16×16 groups, one pixel a thread).
template <unsigned BX, unsigned BY>
__global__ void luma_warp_sums(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    constexpr unsigned kWarps = (BX * BY + 31) / 32;
    __shared__ float warp_sums[kWarps];
    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    float v = 0.0f;
    if (x < width && y < height) {
        const uchar4 p = image[y * width + x];
        v = (0.2125f * p.x + 0.7154f * p.y + 0.0721f * p.z) / 255.0f;
    }
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    const unsigned lane = tid % warpSize, warp = tid / warpSize;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kWarps ? warp_sums[lane] : 0.0f;
        for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = v;
    }
}
