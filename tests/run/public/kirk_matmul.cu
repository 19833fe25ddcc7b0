// Tiled matrix multiplication, as Kirk and Hwu's "Programming Massively
// Parallel Processors" writes it: TILE_WIDTH x TILE_WIDTH tiles of M and N in
// shared memory, phase by phase, with bounds checks (zeros past the edges) so
// that any size works.
// expect exit: 0
// expect stdout: ^matmul: 37x50 times 50x45, correct
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TILE_WIDTH 16

#define CHECK(call)                                                                         \
    {                                                                                       \
        const cudaError_t error = call;                                                     \
        if (error != cudaSuccess) {                                                         \
            printf("Error: %s:%d, code: %d, reason: %s\n", __FILE__, __LINE__, error,       \
                   cudaGetErrorString(error));                                              \
            exit(1);                                                                        \
        }                                                                                   \
    }

// P (I x K) = M (I x J) * N (J x K), row-major.
__global__ void matrixMulKernel(const float* M, const float* N, float* P, int I, int J, int K)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    const int bx = blockIdx.x, by = blockIdx.y;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int Row = by * TILE_WIDTH + ty;
    const int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (J + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        if (Row < I && ph * TILE_WIDTH + tx < J)
            Mds[ty][tx] = M[Row * J + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0;
        if (ph * TILE_WIDTH + ty < J && Col < K)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * K + Col];
        else
            Nds[ty][tx] = 0;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < I && Col < K) P[Row * K + Col] = Pvalue;
}

int main()
{
    const int I = 37, J = 50, K = 45;
    std::vector<float> M(I * J), N(J * K), P(I * K);
    srand(11);
    for (float& v : M) v = float(rand() % 9 - 4);  // small integers: every product and sum exact
    for (float& v : N) v = float(rand() % 9 - 4);
    float *M_d, *N_d, *P_d;
    CHECK(cudaMalloc(&M_d, I * J * sizeof(float)));
    CHECK(cudaMalloc(&N_d, J * K * sizeof(float)));
    CHECK(cudaMalloc(&P_d, I * K * sizeof(float)));
    CHECK(cudaMemcpy(M_d, M.data(), I * J * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(N_d, N.data(), J * K * sizeof(float), cudaMemcpyHostToDevice));
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((K + TILE_WIDTH - 1) / TILE_WIDTH, (I + TILE_WIDTH - 1) / TILE_WIDTH);
    matrixMulKernel<<<dimGrid, dimBlock>>>(M_d, N_d, P_d, I, J, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(P.data(), P_d, I * K * sizeof(float), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int r = 0; r < I; r++)
        for (int c = 0; c < K; c++) {
            float sum = 0;
            for (int k = 0; k < J; k++) sum += M[r * J + k] * N[k * K + c];
            errors += P[r * K + c] != sum;
        }
    printf("matmul: %dx%d times %dx%d, %s\n", I, J, J, K, errors ? "WRONG" : "correct");
    CHECK(cudaFree(M_d));
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
    return errors ? 1 : 0;
}
