// Wrong on purpose: copies instead of transposing (out[y][x] = in[y][x],
// bounds-checked, every element written once).
template <unsigned TILE>
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols)
{
    const unsigned x = blockIdx.x * TILE + threadIdx.x;
    const unsigned y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) out[y * cols + x] = in[y * cols + x];
}
