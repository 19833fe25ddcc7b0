// WRONG on purpose: a tensor-core GEMM (nvcuda::wmma, a warp per 16×16 tile
// of C) launched with 48 threads a block, not a multiple of the warp size, so
// the block's second warp has 16 lanes. mma_sync needs all 32 lanes of a warp:
// the 16 wait there for lanes that do not exist (on a GPU the result is
// undefined). The fault names the product, the missing lanes and the line.
// expect exit: 1
// expect stdout: yes \(below\)
// expect fault: kernel fault: kernel tile_gemm, block \([0-9]+,0,0\), thread \([0-9]+,0,0\) [^:]*: warp deadlock: wmma.mma.sync waits for lanes 0xffff0000 of warp 1, .*wrong_wmma_partial_warp.cu:38\)$
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

// C (16 × 16·tiles) = A (16×16, row-major) times B (16 × 16·tiles, row-major); warp w computes tile w.
__global__ void tile_gemm(const half* a, const half* b, float* c, int tiles)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    if (warp >= tiles) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_frag;
    wmma::fill_fragment(c_frag, 0.0f);
    wmma::load_matrix_sync(a_frag, a, 16);
    wmma::load_matrix_sync(b_frag, b + warp * 16, 16 * tiles);
    wmma::mma_sync(c_frag, a_frag, b_frag, c_frag);
    wmma::store_matrix_sync(c + warp * 16, c_frag, 16 * tiles, wmma::mem_row_major);
}

int main()
{
    const int tiles = 3, n = 16 * tiles;
    std::vector<half> a(16 * 16), b(16 * n);
    for (int i = 0; i < 16 * 16; i++) a[i] = __float2half((i % 16 == i / 16) ? 1.0f : 0.0f);  // the identity
    for (int i = 0; i < 16 * n; i++) b[i] = __float2half(float(i % 7));
    half *d_a, *d_b;
    float* d_c;
    CUDA_CHECK(cudaMalloc(&d_a, a.size() * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&d_b, b.size() * sizeof(half)));
    CUDA_CHECK(cudaMalloc(&d_c, 16 * n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, a.data(), a.size() * sizeof(half), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b.data(), b.size() * sizeof(half), cudaMemcpyHostToDevice));
    const int threads = 48;  // wrong: one and a half warps a block
    tile_gemm<<<(tiles * 32 + threads - 1) / threads, threads>>>(d_a, d_b, d_c, tiles);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> c(16 * n);
    CUDA_CHECK(cudaMemcpy(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < 16 * n; i++) wrong += c[i] != float(i % 7);  // the identity times B is B
    printf("tile_gemm: %d tiles, %s\n", tiles, wrong ? "WRONG" : "correct");
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    return wrong ? 1 : 0;
}
