// Wrong on purpose: v3 without its bounds checks. Every tile is treated as
// whole, so on a shape no tile divides the edge blocks read and write past
// the end of the matrices.
template <unsigned TILE>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const unsigned x = blockIdx.x * TILE + threadIdx.x;
    const unsigned y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    const unsigned out_x = blockIdx.y * TILE + threadIdx.x;
    const unsigned out_y = blockIdx.x * TILE + threadIdx.y;
    out[out_y * rows + out_x] = tile[threadIdx.x][threadIdx.y];
}
