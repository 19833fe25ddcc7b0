// A textbook's tiled product of square matrices: four parameters (M, N, P,
// Width), where matmul's versions take six (A, B, C and the three sizes).
// Run in place of matmul v3 it is refused in one line that names the six.
#define TILE_WIDTH 16
__global__ void square_matmul(const float* M, const float* N, float* P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE_WIDTH + ty, col = blockIdx.x * TILE_WIDTH + tx;
    float sum = 0;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = M[row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + col];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) sum += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    P[row * Width + col] = sum;
}
