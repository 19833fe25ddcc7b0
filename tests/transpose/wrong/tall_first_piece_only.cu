// Wrong on purpose, by doing less: v5, but each row of out gets only the
// first 32 floats of the block's piece (the loop over the tile's 32-row
// pieces is gone). With 32-row tiles that is all of it; with 64-row tiles,
// half of out stays unwritten.
template <unsigned TILE_ROWS, unsigned THREADS>
__global__ void transpose_tall_tiles(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    constexpr unsigned ROWS = THREADS / 32;
    __shared__ float tile[TILE_ROWS][33];
    const unsigned x = blockIdx.x * 32 + threadIdx.x;
    for (unsigned i = 0; i < TILE_ROWS; i += ROWS) {
        const unsigned y = blockIdx.y * TILE_ROWS + i + threadIdx.y;
        if (x < cols && y < rows) tile[i + threadIdx.y][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();
    for (unsigned i = 0; i < 32; i += ROWS) {
        const unsigned out_y = blockIdx.x * 32 + i + threadIdx.y;
        const unsigned out_x = blockIdx.y * TILE_ROWS + threadIdx.x;
        if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[threadIdx.x][i + threadIdx.y];
    }
}
