// 2D convolution with the filter in constant memory and the input tiled in
// shared memory, as Kirk and Hwu's "Programming Massively Parallel
// Processors" writes it: each block loads an input tile with its halo (zeros
// outside the image, "ghost cells"), and the inner threads compute the output tile.
// expect exit: 0
// expect stdout: ^convolution_2D: 53x29 image, 5x5 filter, correct
#include <cstdio>
#include <cstdlib>
#include <vector>

#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
#define IN_TILE_DIM 16
#define OUT_TILE_DIM (IN_TILE_DIM - 2 * FILTER_RADIUS)

#define CHECK(call)                                                                         \
    {                                                                                       \
        const cudaError_t error = call;                                                     \
        if (error != cudaSuccess) {                                                         \
            printf("Error: %s:%d, code: %d, reason: %s\n", __FILE__, __LINE__, error,       \
                   cudaGetErrorString(error));                                              \
            exit(1);                                                                        \
        }                                                                                   \
    }

__constant__ float F_c[FILTER_DIM][FILTER_DIM];

__global__ void convolution_tiled_2D_const_mem_kernel(const float* N, float* P, int width, int height)
{
    const int col = blockIdx.x * OUT_TILE_DIM + threadIdx.x - FILTER_RADIUS;
    const int row = blockIdx.y * OUT_TILE_DIM + threadIdx.y - FILTER_RADIUS;
    __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM];
    if (row >= 0 && row < height && col >= 0 && col < width)
        N_s[threadIdx.y][threadIdx.x] = N[row * width + col];
    else
        N_s[threadIdx.y][threadIdx.x] = 0.0f;
    __syncthreads();
    const int tileCol = threadIdx.x - FILTER_RADIUS;
    const int tileRow = threadIdx.y - FILTER_RADIUS;
    if (col >= 0 && col < width && row >= 0 && row < height) {
        if (tileCol >= 0 && tileCol < OUT_TILE_DIM && tileRow >= 0 && tileRow < OUT_TILE_DIM) {
            float Pvalue = 0.0f;
            for (int fRow = 0; fRow < FILTER_DIM; fRow++)
                for (int fCol = 0; fCol < FILTER_DIM; fCol++)
                    Pvalue += F_c[fRow][fCol] * N_s[tileRow + fRow][tileCol + fCol];
            P[row * width + col] = Pvalue;
        }
    }
}

int main()
{
    const int width = 53, height = 29;  // neither a multiple of the output tile (12)
    float F[FILTER_DIM][FILTER_DIM];
    for (int i = 0; i < FILTER_DIM; i++)
        for (int j = 0; j < FILTER_DIM; j++) F[i][j] = float((i * 3 + j * 7) % 5 - 2);  // small integers: every sum exact
    std::vector<float> N(width * height), P(width * height);
    srand(2024);
    for (float& v : N) v = float(rand() % 17 - 8);
    float *N_d, *P_d;
    CHECK(cudaMalloc((void**)&N_d, width * height * sizeof(float)));
    CHECK(cudaMalloc((void**)&P_d, width * height * sizeof(float)));
    CHECK(cudaMemcpy(N_d, N.data(), width * height * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(F_c, F, sizeof(F)));
    dim3 dimBlock(IN_TILE_DIM, IN_TILE_DIM);
    dim3 dimGrid((width + OUT_TILE_DIM - 1) / OUT_TILE_DIM, (height + OUT_TILE_DIM - 1) / OUT_TILE_DIM);
    convolution_tiled_2D_const_mem_kernel<<<dimGrid, dimBlock>>>(N_d, P_d, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(P.data(), P_d, width * height * sizeof(float), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int row = 0; row < height; row++)
        for (int col = 0; col < width; col++) {
            float expected = 0.0f;
            for (int fRow = 0; fRow < FILTER_DIM; fRow++)
                for (int fCol = 0; fCol < FILTER_DIM; fCol++) {
                    const int inRow = row - FILTER_RADIUS + fRow, inCol = col - FILTER_RADIUS + fCol;
                    if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width)
                        expected += F[fRow][fCol] * N[inRow * width + inCol];
                }
            errors += P[row * width + col] != expected;
        }
    printf("convolution_2D: %dx%d image, %dx%d filter, %s\n", width, height, FILTER_DIM, FILTER_DIM, errors ? "WRONG" : "correct");
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
    return errors ? 1 : 0;
}
