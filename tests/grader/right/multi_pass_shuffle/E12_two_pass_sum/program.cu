// A right E12 written another way: one kernel template for every pass, two
// elements a thread, warp shuffles inside each warp and the warps' sums
// through dynamic shared memory (extern __shared__); the host launches passes
// over ping-pong buffers until one value is left (70001 elements: 137 blocks,
// then 1).
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

int input_value(unsigned i, unsigned seed)
{
    unsigned x = (i + 1u) * 2654435761u ^ seed;
    x ^= x >> 13;
    return int(x % 201u) - 100;
}

__device__ int warp_sum(int v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

template <unsigned THREADS>
__global__ void reduce_pass(const int* __restrict__ in, int* __restrict__ out, unsigned n)
{
    extern __shared__ int warp_sums[];
    const unsigned i = blockIdx.x * (2 * THREADS) + threadIdx.x;
    int v = (i < n ? in[i] : 0) + (i + THREADS < n ? in[i + THREADS] : 0);
    v = warp_sum(v);
    const unsigned lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < THREADS / warpSize ? warp_sums[lane] : 0;
        v = warp_sum(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    const unsigned n = std::atoi(argv[1]), seed = std::atoi(argv[2]);
    constexpr unsigned threads = 256;
    std::vector<int> host(n);
    for (unsigned i = 0; i < n; ++i) host[i] = input_value(i, seed);
    int *a, *b;
    cudaMalloc(&a, n * sizeof(int));
    cudaMalloc(&b, n * sizeof(int));
    cudaMemcpy(a, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    unsigned count = n;
    do {
        const unsigned blocks = (count + 2 * threads - 1) / (2 * threads);
        reduce_pass<threads><<<blocks, threads, threads / 32 * sizeof(int)>>>(a, b, count);
        if (cudaGetLastError() != cudaSuccess) return 1;
        std::swap(a, b);
        count = blocks;
    } while (count > 1);
    int sum = 0;
    cudaMemcpy(&sum, a, sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("sum %d\n", sum);
    cudaFree(a);
    cudaFree(b);
    return 0;
}
