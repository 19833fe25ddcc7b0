// Right, written differently: v5 with the store loops swapped (the tile's
// 32-row pieces outside, the block's rows of out inside) and the tile's
// padding spelled as a constant. The same elements land in the same places.
constexpr unsigned kPaddedWidth = 33;

template <unsigned TILE_ROWS, unsigned THREADS>
__global__ void transpose_tall_tiles(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE_ROWS * kPaddedWidth];
    const unsigned rows_per_pass = THREADS / warpSize;
    const unsigned x = blockIdx.x * 32 + threadIdx.x;
    for (unsigned i = threadIdx.y; i < TILE_ROWS; i += rows_per_pass) {
        const unsigned y = blockIdx.y * TILE_ROWS + i;
        if (x < cols && y < rows) tile[i * kPaddedWidth + threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();
    for (unsigned piece = 0; piece < TILE_ROWS; piece += 32)
        for (unsigned r = threadIdx.y; r < 32; r += rows_per_pass) {
            const unsigned out_y = blockIdx.x * 32 + r, out_x = blockIdx.y * TILE_ROWS + piece + threadIdx.x;
            if (out_x < rows && out_y < cols) out[out_y * rows + out_x] = tile[(piece + threadIdx.x) * kPaddedWidth + r];
        }
}
