// The sum of n integers in one pass, as the CUDA samples' threadfence
// reduction does it, launched three times from the host loop; and the same
// sum done wrong, every warp adding its share to the total with a plain +=.
//   block_sums fenced   prints "fenced: 3 launches, sum S, expected S: correct"
//   block_sums racy     stops at the += (a data race on global memory)
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kBlock = 128;

__device__ unsigned int blocks_done = 0;

__device__ int warp_sum(int v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

// Each block's sum goes to partial[blockIdx.x]; the last block to finish adds them.
__global__ void sum_fenced(const int* in, int* partial, int* total, int n)
{
    __shared__ int warp_totals[kBlock / 32];
    __shared__ bool is_last;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = warp_sum(i < n ? in[i] : 0);
    if (threadIdx.x % warpSize == 0) warp_totals[threadIdx.x / warpSize] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        int s = 0;
        for (int w = 0; w < kBlock / 32; ++w) s += warp_totals[w];
        partial[blockIdx.x] = s;
        __threadfence();
        is_last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
        int s = 0;
        for (int b = 0; b < gridDim.x; ++b) s += partial[b];
        *total = s;
        blocks_done = 0;
    }
}

// Lane 0 of every warp adds its warp's sum to the total, not atomically.
__global__ void sum_racy(const int* in, int* total, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = warp_sum(i < n ? in[i] : 0);
    if (threadIdx.x % warpSize == 0) *total += v;  // the race
}

int main(int argc, char** argv)
{
    const bool racy = argc > 1 && !std::strcmp(argv[1], "racy");
    const int n = 1000, blocks = (n + kBlock - 1) / kBlock;
    std::vector<int> host(n);
    long long expected = 0;
    for (int k = 0; k < n; ++k) expected += host[k] = (k * 37) % 101 - 50;
    int *in, *partial, *total;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&partial, blocks * sizeof(int));
    cudaMalloc(&total, sizeof(int));
    cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(total, 0, sizeof(int));
    if (racy) {
        sum_racy<<<blocks, kBlock>>>(in, total, n);
        const cudaError_t err = cudaDeviceSynchronize();
        std::printf("racy: %s\n", cudaGetErrorName(err));
        cudaFree(in), cudaFree(partial), cudaFree(total);
        return err == cudaSuccess ? 0 : 1;
    }
    int sum = 0;
    const int launches = 3;
    for (int l = 0; l < launches; ++l) {
        sum_fenced<<<blocks, kBlock>>>(in, partial, total, n);
        cudaMemcpy(&sum, total, sizeof(int), cudaMemcpyDeviceToHost);
    }
    std::printf("fenced: %d launches, sum %d, expected %lld: %s\n", launches, sum, expected,
                sum == expected ? "correct" : "WRONG");
    cudaFree(in), cudaFree(partial), cudaFree(total);
    return sum == expected ? 0 : 1;
}
