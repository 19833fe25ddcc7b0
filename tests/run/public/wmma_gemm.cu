// Half-precision GEMM on the tensor cores through CUDA's warp matrix
// functions, in the manner of NVIDIA's simpleTensorCoreGEMM-style samples:
// D = alpha·A·B + beta·C with A (M×K) row-major and B (K×N) column-major in
// half, C and D in float; each warp computes one 16×16 tile of D, stepping
// along K 16 at a time with load_matrix_sync and mma_sync, then scales its
// accumulator and C's tile element-wise (frag.x[i], whose order CUDA leaves
// open) before store_matrix_sync. The sizes are multiples of 16, unequal so
// that a swapped index shows. Checked against a CPU product in float.
// expect exit: 0
// expect stdout: ^wmma_gemm: 64x48 = 64x80 times 80x48, max error [0-9.e+-]+, PASS
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t err = (call);                                                                       \
        if (err != cudaSuccess) {                                                                       \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err), __FILE__, __LINE__);   \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

__global__ void wmma_gemm(const half* a, const half* b, const float* c, float* d, int M, int N, int K, float alpha,
                          float beta)
{
    const int lda = K, ldb = K, ldc = N;
    // The warp's tile of D: warps along x cover M, blocks along y cover N.
    const int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const int warpN = blockIdx.y * blockDim.y + threadIdx.y;

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c_frag;
    wmma::fill_fragment(acc_frag, 0.0f);

    const int aRow = warpM * WMMA_M, bCol = warpN * WMMA_N;
    if (aRow >= M || bCol >= N) return;  // the whole warp leaves together
    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a_frag, a + aRow * lda + k, lda);
        wmma::load_matrix_sync(b_frag, b + bCol * ldb + k, ldb);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    wmma::load_matrix_sync(c_frag, c + aRow * ldc + bCol, ldc, wmma::mem_row_major);
    for (int i = 0; i < c_frag.num_elements; i++) c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
    wmma::store_matrix_sync(d + aRow * ldc + bCol, c_frag, ldc, wmma::mem_row_major);
}

int main()
{
    const int M = 64, N = 48, K = 80;
    const float alpha = 2.0f, beta = -0.5f;
    std::vector<half> a(M * K), b(K * N);
    std::vector<float> a_f(M * K), b_f(K * N), c(M * N), d(M * N);
    srand(2024);
    // Values in [-1, 1) on a 1/64 grid: exact in half.
    for (int i = 0; i < M * K; i++) { a_f[i] = (rand() % 128 - 64) / 64.0f; a[i] = __float2half(a_f[i]); }
    for (int i = 0; i < K * N; i++) { b_f[i] = (rand() % 128 - 64) / 64.0f; b[i] = __float2half(b_f[i]); }
    for (int i = 0; i < M * N; i++) c[i] = (rand() % 100) / 10.0f;

    half *d_a, *d_b;
    float *d_c, *d_d;
    CHECK(cudaMalloc(&d_a, M * K * sizeof(half)));
    CHECK(cudaMalloc(&d_b, K * N * sizeof(half)));
    CHECK(cudaMalloc(&d_c, M * N * sizeof(float)));
    CHECK(cudaMalloc(&d_d, M * N * sizeof(float)));
    CHECK(cudaMemcpy(d_a, a.data(), M * K * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), K * N * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c, c.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));

    // 128×4 threads: 4 warps along M and 4 along N a block.
    dim3 block(128, 4);
    dim3 grid((M + (WMMA_M * block.x / 32) - 1) / (WMMA_M * block.x / 32), (N + WMMA_N * block.y - 1) / (WMMA_N * block.y));
    wmma_gemm<<<grid, block>>>(d_a, d_b, d_c, d_d, M, N, K, alpha, beta);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), d_d, M * N * sizeof(float), cudaMemcpyDeviceToHost));

    // B is stored column-major: element (k, n) at b[n * K + k].
    double max_error = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float sum = 0;
            for (int k = 0; k < K; k++) sum += a_f[m * K + k] * b_f[n * K + k];
            const double expected = alpha * sum + beta * c[m * N + n];
            max_error = fmax(max_error, fabs(d[m * N + n] - expected));
        }
    printf("wmma_gemm: %dx%d = %dx%d times %dx%d, max error %g, %s\n", M, N, M, K, K, N, max_error,
           max_error < 1e-3 ? "PASS" : "FAIL");
    cudaFree(d_a); cudaFree(d_b); cudaFree(d_c); cudaFree(d_d);
    return max_error < 1e-3 ? 0 : 1;
}
