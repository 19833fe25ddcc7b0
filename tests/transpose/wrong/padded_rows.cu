// Wrong on purpose, for the bank lesson: right results, but the padding went
// to the wrong dimension (tile[TILE + 1][TILE]): rows stay 32 words long, so
// a column of the tile is still in one bank.
template <unsigned TILE>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE + 1][TILE];
    const unsigned x = blockIdx.x * TILE + threadIdx.x;
    const unsigned y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    const unsigned out_x = blockIdx.y * TILE + threadIdx.x;
    const unsigned out_y = blockIdx.x * TILE + threadIdx.y;
    if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[threadIdx.x][threadIdx.y];
}
