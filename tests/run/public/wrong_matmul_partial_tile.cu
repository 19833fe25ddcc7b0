// WRONG on purpose: Kirk and Hwu's tiled matrix multiplication ("Programming
// Massively Parallel Processors") with bounds checks, where the student zero-fills
// the N tile past the edge but forgets the else of the M tile. With J = 5 and
// TILE_WIDTH = 8 there is one phase, and only threads with tx < 5 write their
// Mds[ty][tx]: columns 5, 6 and 7 of every row of Mds stay unwritten. Each
// thread reads its own row, Mds[ty][k], for k = 0..7, so the first unwritten
// element any thread reads is Mds[ty][5] (flat 8 * ty + 5), which the fault must
// name by the declared dimensions: Mds[r][5], r the faulting thread's ty
// (which thread reads first is the schedule's; the pattern pairs each ty with its row).
// expect exit: 1
// expect stdout: WRONG
// expect fault: kernel fault: kernel matrixMulKernel, block \([01],[01],0\), thread \([0-7],(0,0\) [^:]*: [^M]*Mds\[0|1,0\) [^:]*: [^M]*Mds\[1|2,0\) [^:]*: [^M]*Mds\[2|3,0\) [^:]*: [^M]*Mds\[3|4,0\) [^:]*: [^M]*Mds\[4|5,0\) [^:]*: [^M]*Mds\[5|6,0\) [^:]*: [^M]*Mds\[6|7,0\) [^:]*: [^M]*Mds\[7)\]\[5\] has not.*wrong_matmul_partial_tile.cu:47\)$
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TILE_WIDTH 8

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
            Mds[ty][tx] = M[Row * J + ph * TILE_WIDTH + tx];  // missing: else Mds[ty][tx] = 0;
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
    const int I = 16, J = 5, K = 12;  // every Row < I; J < TILE_WIDTH: one partial phase
    std::vector<float> M(I * J), N(J * K), P(I * K);
    srand(7);
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
    const cudaError_t launched = cudaDeviceSynchronize();
    if (launched != cudaSuccess) {
        printf("matmul: WRONG (%s)\n", cudaGetErrorString(launched));
        return 1;
    }
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
