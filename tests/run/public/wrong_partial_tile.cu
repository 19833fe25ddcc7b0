// WRONG on purpose: a block sum that fills its shared tile only where there is
// input (`if (i < n)`, no zero in the else), then reduces the whole tile. The
// last block's tile is partly filled: its tree reads shared memory nobody wrote.
// expect exit: 1
// expect stdout: yes \(below\)
// expect fault: kernel fault: kernel block_sums, block \(3,0,0\), thread \(([0-9]|[1-9][0-9]|1[0-1][0-9]|12[0-7]),0,0\) [^:]*: read of uninitialised shared memory: tile\[(23[2-9]|24[0-9]|25[0-5])\].*wrong_partial_tile.cu:29\)$
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BLOCK 256

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

__global__ void block_sums(const int* in, int* sums, int n)
{
    __shared__ int tile[BLOCK];
    const int tid = threadIdx.x, i = blockIdx.x * BLOCK + tid;
    if (i < n) tile[tid] = in[i];  // missing: else tile[tid] = 0;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (tid < stride) tile[tid] += tile[tid + stride];
        __syncthreads();
    }
    if (tid == 0) sums[blockIdx.x] = tile[0];
}

int main()
{
    const int n = 1000, blocks = (n + BLOCK - 1) / BLOCK;  // the last block holds 1000 - 768 = 232 elements
    std::vector<int> in(n), sums(blocks);
    for (int i = 0; i < n; i++) in[i] = i % 3;
    int *d_in, *d_sums;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    block_sums<<<blocks, BLOCK>>>(d_in, d_sums, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int total = 0, expected = 0;
    for (int s : sums) total += s;
    for (int v : in) expected += v;
    printf("block sums: %d, expected %d: %s\n", total, expected, total == expected ? "correct" : "WRONG");
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sums));
    return total == expected ? 0 : 1;
}
