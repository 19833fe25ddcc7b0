// A sum in several passes, as textbooks write one: each block adds 2 * BLOCK
// elements in shared memory (a template on the block size, extern __shared__),
// and the host launches passes until one value is left.
#include <cstdio>
#include <vector>

template <unsigned BLOCK>
__global__ void reduce_pass(const int* in, int* out, unsigned n)
{
    extern __shared__ int partial[];
    const unsigned tid = threadIdx.x, i = blockIdx.x * (2 * BLOCK) + tid;
    int sum = i < n ? in[i] : 0;
    if (i + BLOCK < n) sum += in[i + BLOCK];
    partial[tid] = sum;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
    if (tid == 0 && gridDim.x == 1) printf("last pass: %u partial sums\n", n);
}

int main()
{
    const unsigned n = 100000, block = 256;
    std::vector<int> host(n);
    unsigned seed = 12345;
    long long expected = 0;
    for (unsigned i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;  // a seeded LCG: the same input every run
        host[i] = int(seed >> 16) % 100;
        expected += host[i];
    }
    int *in, *out;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    unsigned count = n, passes = 0;
    while (count > 1) {
        const unsigned blocks = (count + 2 * block - 1) / (2 * block);
        reduce_pass<block><<<blocks, block, block * sizeof(int)>>>(in, out, count);
        if (cudaGetLastError() != cudaSuccess) return 2;
        std::swap(in, out);
        count = blocks;
        ++passes;
    }
    int sum = 0;
    cudaMemcpy(&sum, in, sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("reduction: %u passes, sum %d, expected %lld: %s\n", passes, sum, expected, sum == expected ? "correct" : "WRONG");
    cudaFree(in);
    cudaFree(out);
    return sum == expected ? 0 : 1;
}
