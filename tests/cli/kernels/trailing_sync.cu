// A block sum written as NVIDIA's samples write one (cooperative groups, an
// extern __shared__ array, a host main()), with one barrier too many: the
// block.sync() after thread 0's store orders nothing, since no thread touches
// shared memory after it. The tree loop's block.sync() is needed.
#include <cooperative_groups.h>

#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

__global__ void block_sum(const int* in, int* out, unsigned n)
{
    cg::thread_block block = cg::this_thread_block();
    extern __shared__ int partial[];
    const unsigned tid = block.thread_rank();
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0;
    block.sync();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        block.sync();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
    block.sync();
}

int main()
{
    const unsigned n = 1000, threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<int> host(n, 1);
    int *in = nullptr, *out = nullptr;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, blocks * sizeof(int));
    cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    block_sum<<<blocks, threads, threads * sizeof(int)>>>(in, out, n);
    std::vector<int> sums(blocks);
    cudaMemcpy(sums.data(), out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    long total = 0;
    for (int s : sums) total += s;
    std::printf("sum %ld (expected %u)\n", total, n);
    cudaFree(in);
    cudaFree(out);
    return 0;
}
