// A first luminance sum that forgets the image's edge: the tile's threads past
// the right or bottom edge read image[y * width + x] anyway. Inside a row the
// read lands in the next row (a wrong sum, no fault); past the last pixel it is
// outside the image, and the fault names the parameter: image[...], not argument 0.
template <unsigned BX, unsigned BY>
__global__ void luma_past_end(const uchar4* __restrict__ image, unsigned width, unsigned height, float* partials)
{
    __shared__ float tile[BX * BY];
    const unsigned tid = threadIdx.y * BX + threadIdx.x;
    const unsigned x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    const uchar4 p = image[y * width + x];  // no x < width && y < height check
    tile[tid] = (0.2125f * p.x + 0.7154f * p.y + 0.0721f * p.z) / 255.0f;
    __syncthreads();
    for (unsigned s = BX * BY / 2; s > 0; s >>= 1) {
        if (tid < s) tile[tid] += tile[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.y * gridDim.x + blockIdx.x] = tile[0];
}
