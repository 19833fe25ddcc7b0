// SGEMM with 1D blocktiling, in the manner of the SGEMM tutorials (Boehm,
// "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance"): a block
// computes a BM x BN tile of C, staging BM x BK of A and BK x BN of B in shared
// memory; each thread computes TM results down a column, keeping them in
// registers. A is stored transposed in shared memory so that a thread's TM
// values of a column are contiguous and read as float4s; loops #pragma unroll.
// C = alpha * A * B + beta * C, row-major.
// expect exit: 0
// expect stdout: ^sgemm 1D blocktiling: 128x192x48, 0 wrong, correct
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))

#define cudaCheck(err) (cudaCheckImpl(err, __FILE__, __LINE__))
void cudaCheckImpl(cudaError_t error, const char* file, int line)
{
    if (error != cudaSuccess) {
        printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        exit(EXIT_FAILURE);
    }
}

template <const int BM, const int BN, const int BK, const int TM>
__global__ void __launch_bounds__((BM * BN) / TM)
    sgemm1DBlocktiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C)
{
    const unsigned int cRow = blockIdx.y, cCol = blockIdx.x;
    const int threadCol = threadIdx.x % BN, threadRow = threadIdx.x / BN;
    __shared__ alignas(16) float As[BK * BM];  // transposed: As[k * BM + row]
    __shared__ float Bs[BK * BN];
    A += cRow * BM * K;
    B += cCol * BN;
    C += cRow * BM * N + cCol * BN;
    static_assert(BM * BK == (BM * BN) / TM && BN * BK == (BM * BN) / TM, "one element of each tile a thread");
    const unsigned int innerColA = threadIdx.x % BK, innerRowA = threadIdx.x / BK;
    const unsigned int innerColB = threadIdx.x % BN, innerRowB = threadIdx.x / BN;

    float threadResults[TM] = {0.0f};
    for (unsigned int bkIdx = 0; bkIdx < K; bkIdx += BK) {
        As[innerColA * BM + innerRowA] = A[innerRowA * K + innerColA];
        Bs[innerRowB * BN + innerColB] = B[innerRowB * N + innerColB];
        __syncthreads();
        A += BK;
        B += BK * N;
#pragma unroll
        for (unsigned int dotIdx = 0; dotIdx < BK; ++dotIdx) {
            const float tmpB = Bs[dotIdx * BN + threadCol];
#pragma unroll
            for (unsigned int resIdx = 0; resIdx < TM; resIdx += 4) {
                const float4 a = reinterpret_cast<const float4*>(&As[dotIdx * BM + threadRow * TM + resIdx])[0];
                threadResults[resIdx + 0] += a.x * tmpB;
                threadResults[resIdx + 1] += a.y * tmpB;
                threadResults[resIdx + 2] += a.z * tmpB;
                threadResults[resIdx + 3] += a.w * tmpB;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (unsigned int resIdx = 0; resIdx < TM; ++resIdx) {
        float& c = C[(threadRow * TM + resIdx) * N + threadCol];
        c = alpha * threadResults[resIdx] + beta * c;
    }
}

int main()
{
    const int M = 128, N = 192, K = 48;  // multiples of the tiles, as the tutorial's kernel assumes
    const float alpha = 2.0f, beta = -1.0f;
    constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
    std::vector<float> A(M * K), B(K * N), C(M * N), expected(M * N);
    srand(17);
    for (float& v : A) v = float(rand() % 7 - 3);  // small integers: the sums are exact
    for (float& v : B) v = float(rand() % 7 - 3);
    for (float& v : C) v = float(rand() % 5);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++) sum += A[i * K + k] * B[k * N + j];
            expected[i * N + j] = alpha * sum + beta * C[i * N + j];
        }
    float *dA, *dB, *dC;
    cudaCheck(cudaMalloc((void**)&dA, sizeof(float) * M * K));
    cudaCheck(cudaMalloc((void**)&dB, sizeof(float) * K * N));
    cudaCheck(cudaMalloc((void**)&dC, sizeof(float) * M * N));
    cudaCheck(cudaMemcpy(dA, A.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(dB, B.data(), sizeof(float) * K * N, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(dC, C.data(), sizeof(float) * M * N, cudaMemcpyHostToDevice));
    dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
    dim3 blockDim((BM * BN) / TM);
    sgemm1DBlocktiling<BM, BN, BK, TM><<<gridDim, blockDim>>>(M, N, K, alpha, dA, dB, beta, dC);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(C.data(), dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < M * N; i++) errors += C[i] != expected[i];
    printf("sgemm 1D blocktiling: %dx%dx%d, %d wrong, %s\n", M, N, K, errors, errors ? "WRONG" : "correct");
    cudaCheck(cudaFree(dA));
    cudaCheck(cudaFree(dB));
    cudaCheck(cudaFree(dC));
    return errors ? 1 : 0;
}
