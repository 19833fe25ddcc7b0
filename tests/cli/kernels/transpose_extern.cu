// The padded shared tile of Harris's "An Efficient Matrix Transpose in CUDA
// C/C++", sized by the host instead of the kernel: TILE_DIM rows of
// TILE_DIM + 1 floats in an unsized extern array. The template parameters
// come in the article's names; launched as transpose v4 (32×8 threads).
template <unsigned TILE_DIM, unsigned BLOCK_ROWS>
__global__ void transpose_extern_tile(const float* idata, float* odata, unsigned rows, unsigned cols)
{
    extern __shared__ float tile[];
    const unsigned pitch = TILE_DIM + 1;
    unsigned x = blockIdx.x * TILE_DIM + threadIdx.x;
    unsigned y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[(threadIdx.y + j) * pitch + threadIdx.x] = idata[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) odata[(y + j) * rows + x] = tile[threadIdx.x * pitch + threadIdx.y + j];
}
