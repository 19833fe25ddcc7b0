// Wrong on purpose, by doing less: v3, but a block whose tile is not whole
// does nothing (no fault, and every whole tile is right).
template <unsigned TILE>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE + 1];
    if ((blockIdx.x + 1) * TILE > cols || (blockIdx.y + 1) * TILE > rows) return;
    const unsigned x = blockIdx.x * TILE + threadIdx.x;
    const unsigned y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    const unsigned out_x = blockIdx.y * TILE + threadIdx.x;
    const unsigned out_y = blockIdx.x * TILE + threadIdx.y;
    out[out_y * rows + out_x] = tile[threadIdx.x][threadIdx.y];
}
