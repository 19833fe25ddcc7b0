// The sum of the squares of N ints in two launches, as a textbook writes it:
// one kernel squares each element, a second adds each block's squares in
// shared memory with interleaved addressing (Harris, "Optimizing Parallel
// Reduction in CUDA", kernel 2: thread t works on element 2 s t) and adds the
// block's sum into the total with atomicAdd. program.json's slides show both
// launches, the second beside the reduction lab's v3.
#include <cstdio>
#include <vector>

__global__ void square(const int* in, int* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

__global__ void block_sum(const int* in, int* total, int n)
{
    extern __shared__ int partial[];
    const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < unsigned(n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) partial[index] += partial[index + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, partial[0]);
}

int main()
{
    const int n = 1000, block = 256;  // 4 blocks, the last with 232 elements
    std::vector<int> host(n);
    long long expected = 0;
    for (int i = 0; i < n; ++i) {
        host[i] = i % 7 - 3;
        expected += host[i] * host[i];
    }
    int *in, *squares, *total;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&squares, n * sizeof(int));
    cudaMalloc(&total, sizeof(int));
    cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(total, 0, sizeof(int));
    const int blocks = (n + block - 1) / block;
    square<<<blocks, block>>>(in, squares, n);
    block_sum<<<blocks, block, block * sizeof(int)>>>(squares, total, n);
    int sum = 0;
    cudaMemcpy(&sum, total, sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("sum of squares %d, expected %lld: %s\n", sum, expected, sum == expected ? "correct" : "WRONG");
    cudaFree(in);
    cudaFree(squares);
    cudaFree(total);
    return sum == expected ? 0 : 1;
}
