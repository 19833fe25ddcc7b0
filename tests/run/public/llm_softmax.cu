// Softmax over the last dimension of a (B, T, C) tensor, as llm.c writes its
// forward kernels: one warp a row, cooperative groups' warp tiles and
// cg::reduce for the row's maximum and sum, streaming loads and stores.
// expect exit: 0
// expect stdout: ^softmax_forward: 52 rows of 100, correct
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

void cuda_check(cudaError_t error, const char* file, int line)
{
    if (error != cudaSuccess) {
        std::printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
        std::exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

__global__ void softmax_forward_kernel(float* __restrict__ out, const float* __restrict__ inp, int N, int C)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= N) return;
    const float* x = inp + (size_t)row * C;

    float maxval = -INFINITY;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) maxval = fmaxf(maxval, __ldcs(x + i));
    maxval = cg::reduce(warp, maxval, cg::greater<float>{});

    float sumval = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) sumval += expf(__ldcs(x + i) - maxval);
    sumval = cg::reduce(warp, sumval, cg::plus<float>{});

    const float norm = 1.0f / sumval;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) __stcs(out + (size_t)row * C + i, expf(x[i] - maxval) * norm);
}

void softmax_forward_cpu(float* out, const float* inp, int N, int C)
{
    for (int r = 0; r < N; r++) {
        const float* x = inp + r * C;
        double maxval = -INFINITY, sum = 0.0;
        for (int i = 0; i < C; i++) maxval = std::fmax(maxval, x[i]);
        for (int i = 0; i < C; i++) sum += std::exp(x[i] - maxval);
        for (int i = 0; i < C; i++) out[r * C + i] = float(std::exp(x[i] - maxval) / sum);
    }
}

int main()
{
    const int B = 4, T = 13, C = 100;  // C is no multiple of a warp: the last pass of each loop is partial
    const int N = B * T;
    std::vector<float> inp(N * C), out(N * C), ref(N * C);
    srand(1337);
    for (float& v : inp) v = (float)rand() / RAND_MAX * 8.0f - 4.0f;
    softmax_forward_cpu(ref.data(), inp.data(), N, C);

    float *d_inp, *d_out;
    cudaCheck(cudaMalloc(&d_inp, N * C * sizeof(float)));
    cudaCheck(cudaMalloc(&d_out, N * C * sizeof(float)));
    cudaCheck(cudaMemcpy(d_inp, inp.data(), N * C * sizeof(float), cudaMemcpyHostToDevice));
    const int block_size = 128;  // 4 warps, 4 rows a block
    const int grid_size = (N * 32 + block_size - 1) / block_size;
    softmax_forward_kernel<<<grid_size, block_size>>>(d_out, d_inp, N, C);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out.data(), d_out, N * C * sizeof(float), cudaMemcpyDeviceToHost));

    int wrong = 0;
    for (int i = 0; i < N * C; i++)
        if (std::fabs(out[i] - ref[i]) > 1e-6f + 1e-5f * std::fabs(ref[i])) {
            if (wrong++ < 5) std::printf("mismatch at %d: %f vs %f\n", i, out[i], ref[i]);
        }
    std::printf("softmax_forward: %d rows of %d, %s\n", N, C, wrong ? "WRONG" : "correct");
    cudaCheck(cudaFree(d_inp));
    cudaCheck(cudaFree(d_out));
    return wrong ? 1 : 0;
}
