// Tiled matrix multiply with dynamically sized tiles, as Kirk and Hwu's
// "Programming Massively Parallel Processors" writes it: one unsized extern
// array holds A's tile and then B's, and the host sizes it as
// 2 * TILE * TILE * sizeof(float). Launched as matmul v3 (TILE×TILE threads).
__global__ void matmul_dynamic_tiles(const float* A, const float* B, float* C, unsigned M, unsigned N, unsigned K)
{
    extern __shared__ float tiles[];
    const unsigned width = blockDim.x;  // TILE
    float* As = tiles;
    float* Bs = tiles + width * width;
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned row = blockIdx.y * width + ty, col = blockIdx.x * width + tx;
    float acc = 0.0f;
    for (unsigned k0 = 0; k0 < K; k0 += width) {
        As[ty * width + tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty * width + tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (unsigned k = 0; k < width; ++k) acc += As[ty * width + k] * Bs[k * width + tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
