// Wrong, though its total is right: thread 0 of group 0 adds every pixel in a
// serial loop and writes the total as partial 0; the other groups write 0.
// The mean luminance comes out right, but the grid of partials (one sum per
// group's tile) is not what the first pass must leave.
template <unsigned BX, unsigned BY>
__global__ void image_sequential(const uchar4* image, unsigned width, unsigned height, float* partials)
{
    if (threadIdx.x != 0 || threadIdx.y != 0) return;
    float sum = 0.0f;
    if (blockIdx.x == 0 && blockIdx.y == 0)
        for (unsigned i = 0; i < width * height; ++i) {
            const uchar4 p = image[i];
            sum += (0.2125f * p.x + 0.7154f * p.y + 0.0721f * p.z) * (1.0f / 255.0f);
        }
    partials[blockIdx.y * gridDim.x + blockIdx.x] = sum;
}
